// The one test command (README, CI): makes sure Debian's Chromium, coturn, nginx, Janus (and, as root,
// iproute2 and nftables for the blocked-network test) are there, builds, then runs the
// unit/server tests and the browser tests. Server tests use DATABASE_URL (a fresh database per
// test file) and fall back to in-memory PGlite when it is unset.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { stdio: 'inherit', ...opts }).status ?? 1;
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Debian packages the tests drive for real: the browser, coturn for the TURN tests, nginx for
// the LL-HLS edge test (e2e/nginx.ts) and Janus for its media engine (server/media/janus); as root, iproute2 and nftables for the network that blocks
// UDP (e2e/netns.ts; that test needs root and is skipped without it).
const root = process.getuid?.() === 0;
const needed = [
  { path: chromium, packages: ['chromium', 'fonts-noto-core'] },
  { path: '/usr/bin/turnserver', packages: ['coturn'] },
  { path: '/usr/sbin/nginx', packages: ['nginx-light'] },
  { path: '/usr/bin/janus', packages: ['janus'] },
  ...(root
    ? [
        // To build libsrtp2 with OpenSSL for Janus (below); without them that one test is skipped.
        { path: '/usr/bin/make', packages: ['build-essential'] },
        { path: '/usr/include/openssl/evp.h', packages: ['libssl-dev'] },
        { path: '/usr/sbin/ip', packages: ['iproute2'] },
        { path: '/usr/sbin/nft', packages: ['nftables'] },
      ]
    : []),
].filter((n) => !existsSync(n.path));
if (needed.length) {
  const packages = needed.flatMap((n) => n.packages);
  if (root) {
    console.log(`Installing ${packages.join(', ')} for the tests…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (
      run('apt-get', ['update', '-qq'], { env }) !== 0 ||
      run('apt-get', ['install', '-y', '-qq', ...packages], { env }) !== 0
    ) {
      console.error(`Could not install ${packages.join(', ')}`);
      process.exit(1);
    }
  } else {
    console.error(
      `The tests need ${needed.map((n) => n.path).join(' and ')}: sudo apt-get install ${packages.join(' ')}`,
    );
    process.exit(1);
  }
}

if (!process.env.DATABASE_URL) console.log('DATABASE_URL is not set: server tests run on in-memory PGlite.');

// Janus's tests also run it on libsrtp2 built with OpenSSL from Debian's source (a few seconds,
// once: it is kept in .cache/). Without it that test fails in CI and is skipped elsewhere.
if (run('sh', ['scripts/libsrtp-openssl.sh']) !== 0) console.error('Could not build libsrtp2 with OpenSSL');

if (run('node', ['scripts/build.mjs']) !== 0) process.exit(1);
const args = process.argv.slice(2);
process.exit(run('npx', ['vitest', 'run', ...args]));
