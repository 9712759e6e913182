import { randomInt } from 'node:crypto';
import sharp from 'sharp';
import glyphData from './assets/glyphs.json';

/**
 * The image captcha, drawn so that no two renderings of a character share an outline: each
 * character is an outline from one of six fonts, flattened to points, turned, sheared and scaled
 * on its own, then every point is moved by a wave across the whole image and jittered. Strokes
 * in the glyphs' own colours cross the text, and the raster gets grain and speckles. A script
 * that learns each character's shape from solved captchas (as one did with svg-captcha, whose
 * glyphs were the same SVG paths every time) no longer finds the same shape twice.
 */

type Command = [string, ...number[]];
interface Glyph {
  advance: number;
  commands: Command[];
}
const FONTS = (glyphData as unknown as { fonts: { chars: Record<string, Glyph> }[] }).fonts;
export const CAPTCHA_ALPHABET = (glyphData as { alphabet: string }).alphabet;
export const CAPTCHA_LENGTH = 5;
export const CAPTCHA_WIDTH = 200;
export const CAPTCHA_HEIGHT = 64;

type Point = [number, number];

/** A uniform number in [min, max) (crypto-grade is not needed for shapes; the answer uses randomInt). */
const between = (min: number, max: number) => min + Math.random() * (max - min);
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** The outline's contours as polylines (curves sampled, long lines split), in em units. */
function contours(glyph: Glyph): Point[][] {
  const out: Point[][] = [];
  let current: Point[] = [];
  let at: Point = [0, 0];
  const lineTo = (to: Point) => {
    const steps = Math.max(1, Math.ceil(Math.hypot(to[0] - at[0], to[1] - at[1]) / 0.05));
    for (let i = 1; i <= steps; i++)
      current.push([at[0] + ((to[0] - at[0]) * i) / steps, at[1] + ((to[1] - at[1]) * i) / steps]);
    at = to;
  };
  for (const [type, ...n] of glyph.commands) {
    if (type === 'M') {
      if (current.length > 2) out.push(current);
      at = [n[0] ?? 0, n[1] ?? 0];
      current = [at];
    } else if (type === 'L') {
      lineTo([n[0] ?? 0, n[1] ?? 0]);
    } else if (type === 'Q' || type === 'C') {
      const ctrl: Point[] = [at];
      for (let i = 0; i + 1 < n.length; i += 2) ctrl.push([n[i] ?? 0, n[i + 1] ?? 0]);
      for (let s = 1; s <= 12; s++) {
        const t = s / 12;
        // De Casteljau: works for both quadratic and cubic segments.
        let pts = ctrl;
        while (pts.length > 1)
          pts = pts
            .slice(1)
            .map((p, i) => [
              (pts[i] as Point)[0] + (p[0] - (pts[i] as Point)[0]) * t,
              (pts[i] as Point)[1] + (p[1] - (pts[i] as Point)[1]) * t,
            ]);
        current.push(pts[0] as Point);
      }
      at = ctrl[ctrl.length - 1] as Point;
    } else if (type === 'Z' && current.length > 0) {
      lineTo(current[0] as Point);
    }
  }
  if (current.length > 2) out.push(current);
  return out;
}

/** A smooth displacement of the whole image: two sine waves each way, random phase and size. */
function randomWarp(): (p: Point) => Point {
  const waves = [0, 1].map(() => ({
    ax: between(1.5, 3),
    ay: between(1.5, 3),
    fx: (Math.PI * 2) / between(30, 70),
    fy: (Math.PI * 2) / between(30, 70),
    px: between(0, Math.PI * 2),
    py: between(0, Math.PI * 2),
  }));
  return ([x, y]) => {
    let dx = 0;
    let dy = 0;
    for (const w of waves) {
      dx += w.ax * Math.sin(y * w.fy + w.px);
      dy += w.ay * Math.sin(x * w.fx + w.py);
    }
    return [x + dx + between(-0.35, 0.35), y + dy + between(-0.35, 0.35)];
  };
}

const darkColour = () => `hsl(${randomInt(360)} ${randomInt(45, 85)}% ${randomInt(18, 38)}%)`;
const fmt = (n: number) => n.toFixed(1);
const pathOf = (polys: Point[][]) =>
  polys.map((poly) => `M${poly.map(([x, y]) => `${fmt(x)} ${fmt(y)}`).join('L')}Z`).join('');

/** The SVG of one rendering (before the raster noise). */
function drawing(text: string): string {
  const warp = randomWarp();
  const colours = Array.from(text).map(darkColour);
  const slot = (CAPTCHA_WIDTH - 24) / text.length;
  const glyphs = Array.from(text).map((ch, i) => {
    const glyph = pick(FONTS).chars[ch];
    if (!glyph) throw new Error(`no glyph for ${ch}`);
    const size = between(40, 48);
    const angle = between(-0.32, 0.32);
    const shear = between(-0.25, 0.25);
    const sx = size * between(0.8, 1.2);
    const sy = size * between(0.85, 1.15);
    const cx = 12 + slot * (i + 0.5) + between(-4, 4);
    const cy = CAPTCHA_HEIGHT / 2 + between(-5, 5);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    // Centre the outline on its advance and cap height before turning it.
    const ox = glyph.advance / 2;
    const oy = -0.36;
    const polys = contours(glyph).map((poly) =>
      poly.map(([x, y]): Point => {
        const ux = (x - ox + shear * (y - oy)) * sx;
        const uy = (y - oy) * sy;
        return warp([cx + ux * cos - uy * sin, cy + ux * sin + uy * cos]);
      }),
    );
    const colour = colours[i] ?? '#333';
    // Some characters are drawn as outlines only: a filled template does not fit them.
    return Math.random() < 0.2
      ? `<path d="${pathOf(polys)}" fill="none" stroke="${colour}" stroke-width="${fmt(between(2.2, 3))}"/>`
      : `<path d="${pathOf(polys)}" fill="${colour}" fill-rule="nonzero"/>`;
  });
  const strokes: string[] = [];
  // Lines through the text in the glyphs' colours and weights, so colour and width do not separate them.
  for (let i = 0; i < 2; i++) {
    const y = () => fmt(between(14, CAPTCHA_HEIGHT - 14));
    strokes.push(
      `<path d="M${fmt(between(0, 30))} ${y()}C${fmt(between(40, 90))} ${y()},${fmt(between(110, 160))} ${y()},${fmt(between(170, CAPTCHA_WIDTH))} ${y()}" fill="none" stroke="${pick(colours)}" stroke-width="${fmt(between(1.2, 2.2))}" stroke-linecap="round"/>`,
    );
  }
  for (let i = 0; i < 6; i++) {
    const x = between(0, CAPTCHA_WIDTH);
    const y = between(0, CAPTCHA_HEIGHT);
    strokes.push(
      `<path d="M${fmt(x)} ${fmt(y)}q${fmt(between(-14, 14))} ${fmt(between(-14, 14))} ${fmt(between(-22, 22))} ${fmt(between(-10, 10))}" fill="none" stroke="${pick(colours)}" stroke-width="${fmt(between(1, 2.4))}" stroke-linecap="round"/>`,
    );
  }
  const hue = randomInt(360);
  const background =
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="${fmt(between(0, 1))}">` +
    `<stop offset="0" stop-color="hsl(${hue} 60% 94%)"/><stop offset="1" stop-color="hsl(${(hue + randomInt(60, 180)) % 360} 60% 90%)"/>` +
    `</linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>`;
  // The order of glyphs and strokes in the document tells nothing either.
  const layers = [...glyphs, ...strokes].sort(() => Math.random() - 0.5);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CAPTCHA_WIDTH}" height="${CAPTCHA_HEIGHT}">${background}${layers.join('')}</svg>`;
}

/** Grain on every pixel and dark and light speckles, then PNG. */
async function withNoise(svg: string): Promise<Buffer> {
  const { data, info } = await sharp(Buffer.from(svg))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i += info.channels) {
    const grain = randomInt(-18, 19);
    for (let c = 0; c < info.channels; c++)
      data[i + c] = Math.max(0, Math.min(255, (data[i + c] ?? 0) + grain));
    const r = Math.random();
    if (r < 0.008) data.fill(randomInt(0, 90), i, i + info.channels);
    else if (r < 0.016) data.fill(randomInt(200, 256), i, i + info.channels);
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** A new answer (from the alphabet, by a CSPRNG) and its rendering as a PNG. */
export async function renderCaptcha(
  text = Array.from(
    { length: CAPTCHA_LENGTH },
    () => CAPTCHA_ALPHABET[randomInt(CAPTCHA_ALPHABET.length)],
  ).join(''),
): Promise<{ text: string; png: Buffer }> {
  return { text, png: await withNoise(drawing(text)) };
}
