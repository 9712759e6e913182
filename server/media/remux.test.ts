import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remuxToMp4 } from './remux';

// The H.264 path (a Chromium broadcast rewrapped, then played and sought in Chromium) is in
// e2e/live.e2e.ts; here, what must not produce a replay file.
describe('remuxToMp4', () => {
  it('leaves no MP4 behind for a file that is not a recording', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beamly-remux-'));
    const webm = join(dir, 'broken.webm');
    writeFileSync(webm, Buffer.from('not a webm file at all'));
    expect(await remuxToMp4(webm, join(dir, 'broken.mp4'))).toBeNull();
    expect(existsSync(join(dir, 'broken.mp4'))).toBe(false);
    expect(existsSync(webm)).toBe(true);
  });

  it('answers null for a recording that is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beamly-remux-'));
    expect(await remuxToMp4(join(dir, 'gone.webm'), join(dir, 'gone.mp4'))).toBeNull();
  });
});
