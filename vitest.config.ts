import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Browser tests of pages, forms and lists: no camera, no media timing. Two run at once (each is a
 * server and a Chromium, mostly waiting on each other).
 */
const PAGE_TESTS = [
  'analytics',
  'auth',
  'captcha',
  'chat-window',
  'explore',
  'feedback',
  'flows',
  'google',
  'home',
  'leaderboard',
  'notifications',
  'phone',
  'routes',
  'routes-more',
  'search',
  'security',
  'sessions',
  'staff',
  'wallet',
].map((name) => `e2e/${name}.e2e.ts`);

/**
 * Server tests with real WebRTC, Janus or a server process of their own (ICE and DTLS against a
 * deadline, a killed process's lease lapsing): they run with the media group, one at a time. With
 * four unit files at once, ICE in restart.test.ts once missed its 60 s.
 */
const MEDIA_SERVER_TESTS = [
  'server/main.test.ts',
  'server/media/audio-only.test.ts',
  'server/modules/audio/audio.test.ts',
  'server/modules/audio/nodes.test.ts',
  'server/media/janus/engine.test.ts',
  'server/modules/live/cascade.test.ts',
  'server/modules/live/demo.test.ts',
  'server/modules/live/hls.test.ts',
  'server/modules/live/janus-routes.test.ts',
  'server/modules/live/media-hardening.test.ts',
  'server/modules/live/restart.test.ts',
  'server/modules/live/stall.test.ts',
];

// Three groups, one after the other (sequence.groupOrder), so that no group's timing-sensitive
// tests share the two cores with another's: server and unit tests (mostly waiting on PostgreSQL,
// so four at once), page tests (two at once), then media tests one at a time (fake cameras
// encoding, packet timing, network namespaces, Janus, nginx: the CPU is theirs).
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['common/**/*.test.ts', 'server/**/*.test.ts', 'web/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MEDIA_SERVER_TESTS],
          testTimeout: 20_000,
          hookTimeout: 60_000,
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: PAGE_TESTS,
          testTimeout: 240_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'media',
          include: ['e2e/**/*.e2e.ts', ...MEDIA_SERVER_TESTS],
          exclude: PAGE_TESTS,
          testTimeout: 240_000,
          hookTimeout: 120_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
