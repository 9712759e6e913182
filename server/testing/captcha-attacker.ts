import sharp from 'sharp';

/**
 * What a script does to read a captcha after learning from solved ones (the attack reported in
 * issue 16 read 35 of 40 svg-captcha images after learning from 40). Two attackers:
 * - by outline: an SVG's glyph paths, moved to the origin, compared with the learned ones (the
 *   same character drawn by svg-captcha is the same path give or take 0.1);
 * - by pixels: the image binarised, cut into as many cells as the answers have characters, each
 *   cell's ink cropped and scaled to a 20×20 grid, and the nearest learned grid (Hamming) wins.
 * Both only ever see what the browser sees: the image the API answers.
 */
export interface Solved {
  image: CaptchaImage;
  answer: string;
}
export type CaptchaImage = { svg: string } | { png: Buffer };

const GRID = 20;

/** A glyph path's numbers, moved so its first point is the origin. */
function shapeOf(d: string): number[] {
  const n = (d.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  const [x0 = 0, y0 = 0] = n;
  return n.map((v, i) => v - (i % 2 === 0 ? x0 : y0));
}

/** The filled paths of an svg-captcha image (noise lines are strokes with fill="none"), left to right. */
function glyphPaths(svg: string): { x: number; shape: number[] }[] {
  return [...svg.matchAll(/<path fill="(?!none)[^"]*" d="([^"]+)"/g)]
    .map((m) => {
      const d = m[1] ?? '';
      const xs = (d.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number).filter((_, i) => i % 2 === 0);
      return { x: Math.min(...xs), shape: shapeOf(d) };
    })
    .sort((a, b) => a.x - b.x);
}

export class OutlineAttacker {
  #templates: { ch: string; shape: number[] }[] = [];

  learn(samples: Solved[]): void {
    for (const { image, answer } of samples) {
      if (!('svg' in image)) continue;
      const glyphs = glyphPaths(image.svg);
      if (glyphs.length !== answer.length) continue;
      glyphs.forEach((g, i) => this.#templates.push({ ch: answer[i] ?? '', shape: g.shape }));
    }
  }

  /** The answer read, or null when the image has no outlines to match (a raster). */
  read(image: CaptchaImage): string | null {
    if (!('svg' in image) || this.#templates.length === 0) return null;
    return glyphPaths(image.svg)
      .map(({ shape }) => {
        let best = { ch: '?', d: Infinity };
        for (const t of this.#templates) {
          if (t.shape.length !== shape.length) continue;
          const d = t.shape.reduce((s, v, i) => s + (v - (shape[i] ?? 0)) ** 2, 0);
          if (d < best.d) best = { ch: t.ch, d };
        }
        return best.ch;
      })
      .join('');
  }
}

/**
 * How far each pixel's colour is from the background's (the most common colour, 0–255), for any
 * captcha image rasterised as a browser would: light-coloured glyphs count as ink too.
 */
export async function contrast(
  image: CaptchaImage,
): Promise<{ data: Buffer; width: number; height: number }> {
  const input = 'svg' in image ? Buffer.from(image.svg) : image.png;
  const { data, info } = await sharp(input)
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const counts = new Map<number, number>();
  for (let i = 0; i < data.length; i += 3) {
    // Colours quantised to 4 bits a channel, so grain does not hide the background.
    const key = ((data[i] ?? 0) >> 4) * 256 + ((data[i + 1] ?? 0) >> 4) * 16 + ((data[i + 2] ?? 0) >> 4);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const bg = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0xfff;
  const [br, bgr, bb] = [((bg >> 8) & 15) * 16 + 8, ((bg >> 4) & 15) * 16 + 8, (bg & 15) * 16 + 8];
  const out = Buffer.alloc(info.width * info.height);
  for (let p = 0; p < out.length; p++) {
    const d = Math.hypot((data[p * 3] ?? 0) - br, (data[p * 3 + 1] ?? 0) - bgr, (data[p * 3 + 2] ?? 0) - bb);
    // Inverted so that ink is dark, as Otsu below expects.
    out[p] = 255 - Math.min(255, Math.round(d));
  }
  return { data: out, width: info.width, height: info.height };
}

/** Otsu's threshold: the level that best splits ink from background. */
function otsu(data: Buffer): number {
  const hist = new Array<number>(256).fill(0);
  for (const v of data) hist[v] = (hist[v] ?? 0) + 1;
  const total = data.length;
  let sum = 0;
  hist.forEach((h, i) => (sum += h * i));
  let sumB = 0;
  let wB = 0;
  let best = { t: 128, v: -1 };
  for (let t = 0; t < 256; t++) {
    wB += hist[t] ?? 0;
    if (wB === 0 || wB === total) continue;
    sumB += t * (hist[t] ?? 0);
    const mB = sumB / wB;
    const mF = (sum - sumB) / (total - wB);
    const v = wB * (total - wB) * (mB - mF) ** 2;
    if (v > best.v) best = { t, v };
  }
  return best.t;
}

/** Ink pixels, without lone specks (an inked pixel needs two inked neighbours). */
export function ink(g: { data: Buffer; width: number; height: number }): Uint8Array {
  const t = otsu(g.data);
  const raw = Uint8Array.from(g.data, (v) => (v <= t ? 1 : 0));
  const out = new Uint8Array(raw.length);
  for (let y = 1; y < g.height - 1; y++)
    for (let x = 1; x < g.width - 1; x++) {
      let n = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) n += raw[(y + dy) * g.width + x + dx] ?? 0;
      out[y * g.width + x] = raw[y * g.width + x] && n >= 3 ? 1 : 0;
    }
  return out;
}

/** The image cut into one cell per character (between the first and last inked columns), each as a grid. */
async function cells(image: CaptchaImage, count: number): Promise<Uint8Array[]> {
  const g = await contrast(image);
  const on = ink(g);
  const colInk = (x: number) => {
    let n = 0;
    for (let y = 0; y < g.height; y++) n += on[y * g.width + x] ?? 0;
    return n;
  };
  let left = 0;
  while (left < g.width - 1 && colInk(left) < 4) left++;
  let right = g.width - 1;
  while (right > left && colInk(right) < 4) right--;
  // Runs of inked columns, when there are as many as characters; else equal cells.
  const runs: [number, number][] = [];
  for (let x = left; x <= right; x++) {
    if (colInk(x) < 1) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === x - 1) last[1] = x;
    else runs.push([x, x]);
  }
  const step = (right - left + 1) / count;
  const spans =
    runs.length === count
      ? runs.map(([a, b]) => [a, b + 1])
      : Array.from({ length: count }, (_, i) => [
          Math.floor(left + step * i),
          Math.floor(left + step * (i + 1)),
        ]);
  return spans.map(([x0 = 0, x1 = 0]) => {
    let top = g.height;
    let bottom = -1;
    let l = x1;
    let r = x0 - 1;
    for (let y = 0; y < g.height; y++)
      for (let x = x0; x < x1; x++)
        if (on[y * g.width + x]) {
          top = Math.min(top, y);
          bottom = Math.max(bottom, y);
          l = Math.min(l, x);
          r = Math.max(r, x);
        }
    const grid = new Uint8Array(GRID * GRID);
    if (bottom < 0) return grid;
    for (let gy = 0; gy < GRID; gy++)
      for (let gx = 0; gx < GRID; gx++) {
        const x = l + Math.floor(((gx + 0.5) * (r - l + 1)) / GRID);
        const y = top + Math.floor(((gy + 0.5) * (bottom - top + 1)) / GRID);
        grid[gy * GRID + gx] = on[y * g.width + x] ?? 0;
      }
    return grid;
  });
}

export class PixelAttacker {
  #templates: { ch: string; grid: Uint8Array }[] = [];
  #length = 4;

  async learn(samples: Solved[]): Promise<void> {
    for (const { image, answer } of samples) {
      this.#length = answer.length;
      const grids = await cells(image, answer.length);
      grids.forEach((grid, i) => this.#templates.push({ ch: answer[i] ?? '', grid }));
    }
  }

  async read(image: CaptchaImage): Promise<string> {
    const grids = await cells(image, this.#length);
    return grids
      .map((grid) => {
        let best = { ch: '?', d: Infinity };
        for (const t of this.#templates) {
          let d = 0;
          for (let i = 0; i < grid.length; i++) if (grid[i] !== t.grid[i]) d++;
          if (d < best.d) best = { ch: t.ch, d };
        }
        return best.ch;
      })
      .join('');
  }
}

/** How many of `tests` either attacker reads right (case-insensitive, as the server compares). */
export async function attack(
  training: Solved[],
  tests: Solved[],
): Promise<{ outline: number; pixels: number; either: number }> {
  const outline = new OutlineAttacker();
  outline.learn(training);
  const pixels = new PixelAttacker();
  await pixels.learn(training);
  let o = 0;
  let p = 0;
  let e = 0;
  for (const { image, answer } of tests) {
    const byOutline = outline.read(image)?.toLowerCase() === answer.toLowerCase();
    const byPixels = (await pixels.read(image)).toLowerCase() === answer.toLowerCase();
    if (byOutline) o++;
    if (byPixels) p++;
    if (byOutline || byPixels) e++;
  }
  return { outline: o, pixels: p, either: e };
}
