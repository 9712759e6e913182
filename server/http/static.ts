import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { CLIENT_DIST } from '../paths';

/** Files served as they are: the client's build, its public files, replays and uploads. */
export async function registerStatic(
  app: FastifyInstance,
  dirs: { uploads: string; recordings: string },
): Promise<void> {
  // Hashed bundle files: cached forever. Build version files: always revalidated. Both are
  // directories (new files appear when a development rebuild runs). Public files: an hour.
  const staticDirs = [
    { dir: 'assets', prefix: '/assets/', cache: 'public, max-age=31536000, immutable', wildcard: true },
    { dir: 'builds', prefix: '/builds/', cache: 'no-cache', wildcard: true },
    { dir: 'public', prefix: '/', cache: 'public, max-age=3600', wildcard: false },
    // Replays are written once, when a publishing session ends; range requests make them seekable.
    { dir: 'recordings', prefix: '/replays/', cache: 'public, max-age=31536000, immutable', wildcard: true },
    // Uploaded files are named by their content hash, so they never change.
    { dir: 'uploads', prefix: '/uploads/', cache: 'public, max-age=31536000, immutable', wildcard: true },
  ];
  // Uploads in object storage (an empty folder) are fetched from there, not from here.
  const served = staticDirs.filter((d) => d.dir !== 'uploads' || dirs.uploads !== '');
  for (const [i, { dir, prefix, cache, wildcard }] of served.entries()) {
    await app.register(fastifyStatic, {
      root:
        dir === 'uploads' ? dirs.uploads : dir === 'recordings' ? dirs.recordings : join(CLIENT_DIST, dir),
      prefix,
      wildcard,
      preCompressed: true,
      index: false,
      decorateReply: i === 0,
      setHeaders(res) {
        res.header('cache-control', cache);
      },
    });
  }
}
