import { existsSync } from 'node:fs';

/** Debian's Chromium (installed by .ci/run and scripts/test.mjs when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}
