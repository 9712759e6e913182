// Renders web/public/og-image.jpg (the 1200×630 link-preview card) from scripts/assets/og-image.html.
// Usage: node --import tsx scripts/og-image.ts
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1200, height: 630 } });
await page.goto(new URL('./assets/og-image.html', import.meta.url).href);
await page.screenshot({ path: 'web/public/og-image.jpg', type: 'jpeg', quality: 85 });
await browser.close();
