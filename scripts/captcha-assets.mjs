// Regenerates the captcha's committed assets (run by hand; CI and servers only read the output):
// - glyphs.json: the outlines of the captcha's characters from six free fonts (DejaVu: Bitstream
//   Vera licence; Liberation: SIL OFL 1.1), so the server needs no font files or font library.
// - voices/<locale>.json: each digit spoken by espeak-ng in the page languages, 8 kHz 16-bit PCM
//   (base64), for the audio captcha.
// Needs Debian's fonts-dejavu-core, fonts-liberation, espeak-ng and sox:
//   apt-get install fonts-dejavu-core fonts-liberation espeak-ng sox && node scripts/captcha-assets.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
// opentype.js comes with svg-captcha (a dev dependency, kept for the attacker test).
const opentype = require('opentype.js');

const OUT = new URL('../server/modules/auth/captcha/assets/', import.meta.url).pathname;
/** Characters that stay distinct when bent: no 0/O/D/Q, 1/I/L/J, 2/Z, 5/S, 8/B, 6/G. */
export const ALPHABET = 'ACEFHKMNPRTUVWXY34679';
const FONTS = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationMono-Bold.ttf',
];
/** espeak-ng voices for the site's locales (Taiwan speaks Mandarin). */
const VOICES = {
  ar: 'ar',
  de: 'de',
  en: 'en-us',
  es: 'es',
  hi: 'hi',
  id: 'id',
  ja: 'ja',
  vi: 'vi',
  // Also zh-TW: Taiwan speaks Mandarin (the server falls back from zh-TW to zh).
  zh: 'cmn',
};

const r = (n) => Math.round(n * 1000) / 1000;

function glyphs() {
  const fonts = FONTS.map((file) => {
    const font = opentype.loadSync(file);
    const chars = {};
    for (const ch of ALPHABET) {
      const glyph = font.charToGlyph(ch);
      // One em tall, baseline at y = 0, y down (as in SVG).
      const path = glyph.getPath(0, 0, 1);
      const commands = path.commands.map((c) => {
        if (c.type === 'M' || c.type === 'L') return [c.type, r(c.x), r(c.y)];
        if (c.type === 'Q') return ['Q', r(c.x1), r(c.y1), r(c.x), r(c.y)];
        if (c.type === 'C') return ['C', r(c.x1), r(c.y1), r(c.x2), r(c.y2), r(c.x), r(c.y)];
        return ['Z'];
      });
      chars[ch] = { advance: r(glyph.advanceWidth / font.unitsPerEm), commands };
    }
    return { name: font.names.fullName.en, chars };
  });
  writeFileSync(join(OUT, 'glyphs.json'), JSON.stringify({ alphabet: ALPHABET, fonts }));
}

function voices() {
  const tmp = mkdtempSync(join(tmpdir(), 'captcha-voices-'));
  mkdirSync(join(OUT, 'voices'), { recursive: true });
  try {
    for (const [locale, voice] of Object.entries(VOICES)) {
      const digits = [];
      for (let d = 0; d <= 9; d++) {
        const raw = join(tmp, `${locale}-${d}.wav`);
        const pcm = join(tmp, `${locale}-${d}.raw`);
        execFileSync('espeak-ng', ['-v', voice, '-s', '130', '-w', raw, String(d)]);
        // Mono, 8 kHz, 16-bit; silence trimmed at both ends; peaks at the same level.
        execFileSync('sox', [
          raw,
          '-r',
          '8000',
          '-c',
          '1',
          '-b',
          '16',
          '-e',
          'signed-integer',
          '-t',
          'raw',
          pcm,
          'silence',
          '1',
          '0.02',
          '1%',
          'reverse',
          'silence',
          '1',
          '0.02',
          '1%',
          'reverse',
          'norm',
          '-1',
        ]);
        digits.push(readFileSync(pcm).toString('base64'));
      }
      writeFileSync(join(OUT, 'voices', `${locale}.json`), JSON.stringify({ sampleRate: 8000, digits }));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

mkdirSync(OUT, { recursive: true });
glyphs();
voices();
