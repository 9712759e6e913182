// Draws the chat sticker set (web/public/stickers/{id}.webp, 160×160, transparent): round faces
// and signs rendered from SVG by sharp. Run: npx tsx scripts/gifts/make-stickers.ts. The files are
// committed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

const S = 160;
const C = S / 2;
const out = join(import.meta.dirname, '../../web/public/stickers');

const face = (fill: string, inner: string) =>
  `<circle cx="${C}" cy="${C}" r="70" fill="${fill}" stroke="#00000022" stroke-width="4"/>${inner}`;
const eyes = (y = 66, r = 8) =>
  `<circle cx="${C - 24}" cy="${y}" r="${r}" fill="#2b1d0e"/><circle cx="${C + 24}" cy="${y}" r="${r}" fill="#2b1d0e"/>`;
const smile = (depth = 26) =>
  `<path d="M ${C - 34} ${C + 8} Q ${C} ${C + 8 + depth * 2} ${C + 34} ${C + 8}" stroke="#2b1d0e" stroke-width="8" fill="none" stroke-linecap="round"/>`;
const heart = (cx: number, cy: number, s: number, fill: string) =>
  `<path d="M ${cx} ${cy + 22 * s} C ${cx - 40 * s} ${cy - 8 * s}, ${cx - 22 * s} ${cy - 40 * s}, ${cx} ${cy - 20 * s}
   C ${cx + 22 * s} ${cy - 40 * s}, ${cx + 40 * s} ${cy - 8 * s}, ${cx} ${cy + 22 * s} Z" fill="${fill}"/>`;
const label = (text: string, fill: string) =>
  `<text x="${C}" y="${C + 16}" font-family="sans-serif" font-weight="800" font-size="52" text-anchor="middle" fill="${fill}" stroke="#fff" stroke-width="3" paint-order="stroke">${text}</text>`;

const STICKERS: Record<number, string> = {
  1: face(
    '#ffd35c',
    `${eyes()}${smile()}<path d="M 128 36 q 14 -10 20 6 M 134 22 q 16 -6 18 12" stroke="#ff9f1c" stroke-width="6" fill="none" stroke-linecap="round"/>`,
  ),
  2: face(
    '#ffd35c',
    `${heart(C - 24, 66, 0.45, '#ff3b6b')}${heart(C + 24, 66, 0.45, '#ff3b6b')}${smile(20)}`,
  ),
  3: face(
    '#ffd35c',
    `<path d="M ${C - 34} 64 l 14 8 l -14 8 M ${C + 34} 64 l -14 8 l 14 8" stroke="#2b1d0e" stroke-width="7" fill="none" stroke-linecap="round"/>
     <path d="M ${C - 38} ${C + 4} Q ${C} ${C + 64} ${C + 38} ${C + 4} Z" fill="#7a2a1a"/>`,
  ),
  4: face('#ffd35c', `${eyes(64, 11)}<ellipse cx="${C}" cy="${C + 30}" rx="16" ry="20" fill="#7a2a1a"/>`),
  5: `<g fill="#ffc23d" stroke="#b7862a" stroke-width="4">
     <rect x="34" y="50" width="44" height="78" rx="20" transform="rotate(-14 56 90)"/>
     <rect x="82" y="50" width="44" height="78" rx="20" transform="rotate(14 104 90)"/></g>
     <path d="M 30 36 l -10 -14 M 80 26 l 0 -16 M 130 36 l 10 -14" stroke="#ff9f1c" stroke-width="6" stroke-linecap="round"/>`,
  6: `<path d="M ${C} 12 C ${C + 50} 60, ${C + 58} 96, ${C + 40} 126 C ${C + 24} 150, ${C - 24} 150, ${C - 40} 126
      C ${C - 58} 96, ${C - 30} 70, ${C - 20} 40 C ${C - 8} 62, ${C} 60, ${C} 12 Z" fill="#ff5a1f"/>
     <path d="M ${C} 70 C ${C + 26} 100, ${C + 22} 138, ${C} 142 C ${C - 22} 138, ${C - 26} 104, ${C} 70 Z" fill="#ffd35c"/>`,
  7: face(
    '#ffd35c',
    `<rect x="${C - 56}" y="52" width="50" height="28" rx="10" fill="#1b1b22"/><rect x="${C + 6}" y="52" width="50" height="28" rx="10" fill="#1b1b22"/>
     <rect x="${C - 8}" y="58" width="16" height="6" fill="#1b1b22"/>${smile(14)}`,
  ),
  8: `<rect x="14" y="38" width="132" height="84" rx="22" fill="#5b3df5"/>${label('GG', '#ffffff')}`,
};

mkdirSync(out, { recursive: true });
for (const [id, inner] of Object.entries(STICKERS)) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}">${inner}</svg>`;
  await sharp(Buffer.from(svg))
    .webp({ quality: 85 })
    .toFile(join(out, `${id}.webp`));
}
console.log(`${Object.keys(STICKERS).length} stickers`);
