// Draws the NFT wallet's collectibles (web/public/collectibles/{id}.webp, 480×480): a medallion per
// design, rendered from SVG by sharp. Run: npx tsx scripts/wallet/make-collectibles.ts. The files
// are committed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

const SIZE = 480;
const C = SIZE / 2;
const out = join(import.meta.dirname, '../../web/public/collectibles');

function rays(n: number, color: string, r1: number, r2: number): string {
  return Array.from({ length: n }, (_, i) => {
    const a = (i / n) * Math.PI * 2;
    return `<line x1="${C + Math.cos(a) * r1}" y1="${C + Math.sin(a) * r1}" x2="${C + Math.cos(a) * r2}" y2="${
      C + Math.sin(a) * r2
    }" stroke="${color}" stroke-width="6" stroke-linecap="round" opacity="0.7"/>`;
  }).join('');
}

function star(cx: number, cy: number, r: number): string {
  const pts = Array.from({ length: 10 }, (_, i) => {
    const a = (i * Math.PI) / 5 - Math.PI / 2;
    const rr = i % 2 ? r * 0.45 : r;
    return `${cx + Math.cos(a) * rr},${cy + Math.sin(a) * rr}`;
  });
  return `<polygon points="${pts.join(' ')}"/>`;
}

function medal(from: string, to: string, inner: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}">
  <defs>
    <radialGradient id="bg" cx="50%" cy="40%" r="70%"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></radialGradient>
    <clipPath id="face"><circle cx="${C}" cy="${C}" r="178"/></clipPath>
    <linearGradient id="rim" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff6c8"/><stop offset="1" stop-color="#c9962b"/></linearGradient>
  </defs>
  <rect width="${SIZE}" height="${SIZE}" rx="48" fill="#14121f"/>
  <circle cx="${C}" cy="${C}" r="196" fill="url(#rim)"/>
  <circle cx="${C}" cy="${C}" r="178" fill="url(#bg)"/>
  <g clip-path="url(#face)">${inner}</g>
</svg>`;
}

const DESIGNS: Record<string, string> = {
  // First recharge: a sunrise.
  first_light: medal(
    '#ffd36b',
    '#ff6a3d',
    `${rays(16, '#fff3c4', 60, 150)}<circle cx="${C}" cy="${C + 30}" r="70" fill="#fff8e1"/>
     <rect x="${C - 178}" y="${C + 60}" width="356" height="120" fill="#7a2a52" opacity="0.85"/>`,
  ),
  // First conversion: a star made of diamonds.
  star_maker: medal(
    '#8ad8ff',
    '#5b3df5',
    `<g fill="#ffffff">${star(C, C, 120)}</g><g fill="#5b3df5" opacity="0.5">${star(C, C, 60)}</g>
     <polygon points="${C},${C - 24} ${C + 20},${C} ${C},${C + 28} ${C - 20},${C}" fill="#ffffff"/>`,
  ),
  // First cash-out: a coin stack.
  first_cashout: medal(
    '#9ff2b5',
    '#168a5b',
    [0, 1, 2, 3]
      .map(
        (i) =>
          `<ellipse cx="${C}" cy="${C + 70 - i * 36}" rx="110" ry="34" fill="#ffe08a" stroke="#b7862a" stroke-width="6"/>`,
      )
      .join('') +
      `<text x="${C}" y="${C - 28}" font-family="sans-serif" font-weight="700" font-size="44" text-anchor="middle" fill="#8a5a12">$</text>`,
  ),
};

mkdirSync(out, { recursive: true });
for (const [id, svg] of Object.entries(DESIGNS)) {
  await sharp(Buffer.from(svg))
    .webp({ quality: 82 })
    .toFile(join(out, `${id}.webp`));
  console.log(`${id}.webp`);
}
