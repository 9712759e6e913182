// The one test command (README, CI): makes sure Debian's Chromium is there, builds, then runs the
// unit/server tests and the browser tests. Server tests use DATABASE_URL (a fresh database per
// test file) and fall back to in-memory PGlite when it is unset.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { stdio: 'inherit', ...opts }).status ?? 1;
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(chromium)) {
  if (process.getuid?.() === 0) {
    console.log('Installing Debian chromium for the browser tests…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (
      run('apt-get', ['update', '-qq'], { env }) !== 0 ||
      run('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-noto-core'], { env }) !== 0
    ) {
      console.error('Could not install chromium');
      process.exit(1);
    }
  } else {
    console.error(`Browser tests need Chromium at ${chromium}: sudo apt-get install chromium`);
    process.exit(1);
  }
}

if (!process.env.DATABASE_URL) console.log('DATABASE_URL is not set: server tests run on in-memory PGlite.');

if (run('node', ['scripts/build.mjs']) !== 0) process.exit(1);
const args = process.argv.slice(2);
process.exit(run('npx', ['vitest', 'run', ...args]));
