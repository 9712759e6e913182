// Draws the gift animations (web/public/gifts/{id}.mp4, and {id}.webp icons): 2 s, 24 fps, 320×320 on black, so the
// page can lay them over the video with `mix-blend-mode: screen` (black disappears, no alpha
// channel needed: plays in every browser). Frames are SVG rendered by sharp; ffmpeg encodes
// H.264. Run: npx tsx scripts/gifts/make-animations.ts (needs ffmpeg). The files are committed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

const SIZE = 320;
const FPS = 24;
const FRAMES = 48;
const C = SIZE / 2;

/** 0→1 over the animation; in/out eases for appearing and fading. */
const ease = (x: number) => 1 - (1 - x) ** 3;
const fade = (t: number) => (t < 0.15 ? t / 0.15 : t > 0.8 ? (1 - t) / 0.2 : 1);

function sparkles(t: number, color: string, n = 10, radius = 120): string {
  return Array.from({ length: n }, (_, i) => {
    const a = (i / n) * Math.PI * 2 + t * 2;
    const r = radius * ease(Math.min(1, t * 1.6));
    const s = 3 + 3 * Math.abs(Math.sin(t * 9 + i));
    return `<circle cx="${C + Math.cos(a) * r}" cy="${C + Math.sin(a) * r}" r="${s}" fill="${color}"/>`;
  }).join('');
}

const heartPath = (s: number) =>
  `M ${C} ${C + 40 * s} C ${C - 90 * s} ${C - 20 * s}, ${C - 50 * s} ${C - 90 * s}, ${C} ${C - 45 * s}
   C ${C + 50 * s} ${C - 90 * s}, ${C + 90 * s} ${C - 20 * s}, ${C} ${C + 40 * s} Z`;

function star(cx: number, cy: number, r: number, rot: number): string {
  const pts = Array.from({ length: 10 }, (_, i) => {
    const a = rot + (i * Math.PI) / 5 - Math.PI / 2;
    const rr = i % 2 ? r * 0.45 : r;
    return `${cx + Math.cos(a) * rr},${cy + Math.sin(a) * rr}`;
  });
  return `<polygon points="${pts.join(' ')}"/>`;
}

const GIFTS: Record<number, (t: number) => string> = {
  // Rose: petals open and turn.
  1: (t) => {
    const s = ease(Math.min(1, t * 2));
    const petals = Array.from({ length: 6 }, (_, i) => {
      const a = (i / 6) * 360 + t * 90;
      return `<ellipse cx="${C}" cy="${C - 30 * s}" rx="${22 * s}" ry="${38 * s}" fill="#e0245e" transform="rotate(${a} ${C} ${C})"/>`;
    }).join('');
    return `<rect x="${C - 3}" y="${C + 20}" width="6" height="${110 * s}" fill="#2f9e44"/>${petals}
      <circle cx="${C}" cy="${C}" r="${18 * s}" fill="#ff8fab"/>${sparkles(t, '#ffd6e0', 8, 130)}`;
  },
  // Heart: beats twice and sends out sparks.
  2: (t) => {
    const beat = 0.8 + 0.25 * Math.abs(Math.sin(t * Math.PI * 4)) * ease(Math.min(1, t * 3));
    return `<path d="${heartPath(beat * 1.4)}" fill="#ff4d8d"/>${sparkles(t, '#ffc2d9', 12, 140)}`;
  },
  // Star: spins in, golden.
  3: (t) => `<g fill="#ffd43b">${star(C, C, 100 * ease(Math.min(1, t * 2)), t * Math.PI * 2)}</g>
      ${sparkles(t, '#fff3bf', 10, 135)}`,
  // Crown: drops in and shines.
  4: (t) => {
    const y = -120 + 120 * ease(Math.min(1, t * 2.2));
    const shine = 0.5 + 0.5 * Math.sin(t * Math.PI * 6);
    return `<g transform="translate(0 ${y})">
        <polygon points="${C - 90},${C + 50} ${C - 100},${C - 40} ${C - 45},${C} ${C},${C - 70} ${C + 45},${C} ${C + 100},${C - 40} ${C + 90},${C + 50}" fill="#fab005"/>
        <rect x="${C - 90}" y="${C + 40}" width="180" height="24" fill="#f59f00"/>
        <circle cx="${C}" cy="${C - 5}" r="12" fill="#e03131" opacity="${0.6 + 0.4 * shine}"/>
        <circle cx="${C - 50}" cy="${C + 52}" r="7" fill="#4dabf7"/><circle cx="${C + 50}" cy="${C + 52}" r="7" fill="#4dabf7"/>
      </g>${sparkles(t, '#fff9db', 12, 140)}`;
  },
  // Rocket: lifts off with a flame trail.
  5: (t) => {
    const y = 140 - 340 * ease(t);
    const flame = 30 + 20 * Math.abs(Math.sin(t * 40));
    return `<g transform="translate(0 ${y})">
        <polygon points="${C - 14},${C + 60} ${C + 14},${C + 60} ${C},${C + 60 + flame}" fill="#ff922b"/>
        <rect x="${C - 22}" y="${C - 30}" width="44" height="90" rx="18" fill="#e9ecef"/>
        <polygon points="${C - 22},${C - 20} ${C + 22},${C - 20} ${C},${C - 70}" fill="#fa5252"/>
        <circle cx="${C}" cy="${C}" r="10" fill="#339af0"/>
        <polygon points="${C - 22},${C + 40} ${C - 40},${C + 65} ${C - 22},${C + 60}" fill="#fa5252"/>
        <polygon points="${C + 22},${C + 40} ${C + 40},${C + 65} ${C + 22},${C + 60}" fill="#fa5252"/>
      </g>${sparkles(t, '#ffe066', 14, 150)}`;
  },
};

const out = join('web', 'public', 'gifts');
mkdirSync(out, { recursive: true });
for (const [id, draw] of Object.entries(GIFTS)) {
  const dir = mkdtempSync(join(tmpdir(), `gift-${id}-`));
  for (let f = 0; f < FRAMES; f++) {
    const t = f / (FRAMES - 1);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}">
      <rect width="100%" height="100%" fill="#000"/><g opacity="${fade(t).toFixed(3)}">${draw(t)}</g></svg>`;
    await sharp(Buffer.from(svg))
      .png()
      .toFile(join(dir, `${String(f).padStart(3, '0')}.png`));
    // The gift wall's icon: the full drawing, on transparent, small.
    if (f === Math.round(FRAMES * 0.45)) {
      const icon = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}">${draw(t)}</svg>`;
      await sharp(Buffer.from(icon))
        .resize(96, 96)
        .webp({ quality: 80 })
        .toFile(join(out, `${id}.webp`));
    }
  }
  execFileSync('ffmpeg', [
    '-y',
    '-loglevel',
    'error',
    '-framerate',
    String(FPS),
    '-i',
    join(dir, '%03d.png'),
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-profile:v',
    'baseline',
    '-crf',
    '28',
    '-movflags',
    '+faststart',
    '-an',
    join(out, `${id}.mp4`),
  ]);
  rmSync(dir, { recursive: true, force: true });
  console.log(`gifts/${id}.mp4`);
}
