import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteId } from '../../common/routes';
import { PAGE_SOURCES } from '../../web/app/page-sources';
import { CLIENT_DIST } from '../paths';

/** What scripts/build.mjs writes to dist/client/manifest.json. */
export interface BuildManifest {
  buildId: string;
  builtAt: string;
  entry: string;
  /** Chunks the entry imports statically. */
  entryImports: string[];
  /** Source file (e.g. `web/pages/Home.tsx`) → its chunk and that chunk's static imports. */
  chunks: Record<string, { file: string; imports: string[] }>;
  css: string;
}

export interface Assets {
  buildId: string;
  entry: string;
  css: string;
  /** modulepreload list for a route: the entry's imports, the page chunk and its imports. */
  preloadsFor(route: RouteId): readonly string[];
}

export function loadAssets(dir = CLIENT_DIST): Assets {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as BuildManifest;
  const css = readFileSync(join(dir, manifest.css), 'utf8');
  const cache = new Map<RouteId, string[]>();
  return {
    buildId: manifest.buildId,
    entry: manifest.entry,
    css,
    preloadsFor(route) {
      let list = cache.get(route);
      if (!list) {
        const chunk = manifest.chunks[PAGE_SOURCES[route]];
        list = [...new Set([...manifest.entryImports, ...(chunk ? [chunk.file, ...chunk.imports] : [])])];
        cache.set(route, list);
      }
      return list;
    },
  };
}
