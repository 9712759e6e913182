import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest folder above this module holding package.json (works from source and dist). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + import.meta.url);
    dir = up;
  }
}

export const ROOT = findRoot();
export const CONTENT_DIR = join(ROOT, 'content');
export const MIGRATIONS_DIR = join(ROOT, 'server', 'db', 'migrations');
export const CLIENT_DIST = join(ROOT, 'dist', 'client');
