// Screenshots of pages at phone and desktop width, for looking at what users see.
// Usage: node --import tsx scripts/screenshot.ts http://localhost:3000 /en /ar/safety ...
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';

const [base = 'http://localhost:3000', ...paths] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
for (const path of paths.length ? paths : ['/en']) {
  for (const [name, viewport] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1366, height: 900 }],
  ] as const) {
    const page = await browser.newPage({ viewport });
    await page.goto(base + path, { waitUntil: 'networkidle' });
    const file = `.tmp/shot-${path.replace(/[^a-z0-9]+/gi, '_')}-${name}.png`;
    await page.screenshot({ path: file, fullPage: process.env.FULL === '1' });
    console.log(file);
    await page.close();
  }
}
await browser.close();
