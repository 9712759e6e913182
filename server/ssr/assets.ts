import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locale } from '../../common/locales';
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
  /** The payment app's own entry and stylesheet (web/payapp/main.tsx, web/styles/payapp.css). */
  payApp: {
    entry: string;
    entryImports: string[];
    chunks: Record<string, { file: string; imports: string[] }>;
    css: string;
  };
}

/** The payment app's files: its script, stylesheet and what to preload for a language. */
export interface PayAppAssets {
  entry: string;
  cssHref: string;
  preloadsFor(locale: Locale): readonly string[];
}

export interface Assets {
  buildId: string;
  entry: string;
  /** The hashed stylesheet's URL (immutable, cached across pages). */
  cssHref: string;
  /** modulepreload list: the entry's imports, the page's chunk and imports, the language's catalogue. */
  preloadsFor(route: RouteId, locale: Locale): readonly string[];
  payApp: PayAppAssets;
}

export function loadAssets(dir = CLIENT_DIST): Assets {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as BuildManifest;

  const cache = new Map<string, string[]>();
  const withImports = (source: string) => {
    const chunk = manifest.chunks[source];
    return chunk ? [chunk.file, ...chunk.imports] : [];
  };
  const pay = manifest.payApp;
  const payPreloads = new Map<Locale, string[]>();
  return {
    buildId: manifest.buildId,
    entry: manifest.entry,
    cssHref: `/${manifest.css}`,
    preloadsFor(route, locale) {
      const key = `${route}|${locale}`;
      let list = cache.get(key);
      if (!list) {
        const sources = [PAGE_SOURCES[route], `web/i18n/messages/${locale}.json`];
        list = [...new Set([...manifest.entryImports, ...sources.flatMap(withImports)])];
        cache.set(key, list);
      }
      return list;
    },
    payApp: {
      entry: pay.entry,
      cssHref: pay.css,
      preloadsFor(locale) {
        let list = payPreloads.get(locale);
        if (!list) {
          const messages = pay.chunks[`web/i18n/messages/${locale}.json`];
          list = [
            ...new Set([...pay.entryImports, ...(messages ? [messages.file, ...messages.imports] : [])]),
          ];
          payPreloads.set(locale, list);
        }
        return list;
      },
    },
  };
}

/**
 * Development: the watcher rebuilds the bundle with new hashes while the server runs, so re-read
 * the manifest whenever it changes.
 */
export function liveAssets(dir = CLIENT_DIST): Assets {
  const file = join(dir, 'manifest.json');
  let mtime = 0;
  let current = loadAssets(dir);
  const fresh = () => {
    const m = existsSync(file) ? statSync(file).mtimeMs : mtime;
    if (m !== mtime) {
      mtime = m;
      try {
        current = loadAssets(dir);
      } catch {
        // Mid-rebuild: keep the previous build until the new one is complete.
      }
    }
    return current;
  };
  return {
    get buildId() {
      return fresh().buildId;
    },
    get entry() {
      return fresh().entry;
    },
    get cssHref() {
      return fresh().cssHref;
    },
    preloadsFor: (route, locale) => fresh().preloadsFor(route, locale),
    payApp: {
      get entry() {
        return fresh().payApp.entry;
      },
      get cssHref() {
        return fresh().payApp.cssHref;
      },
      preloadsFor: (locale) => fresh().payApp.preloadsFor(locale),
    },
  };
}
