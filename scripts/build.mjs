// Builds the browser bundle (code-split per page), the stylesheet and the server bundle, then
// writes dist/client/manifest.json and the version files the browser polls (spec §4, §7).
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { parse as parseIcu } from '@formatjs/icu-messageformat-parser';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist');
const client = join(out, 'client');
const watch = process.argv.includes('--watch');

// A clean start; watch-mode rebuilds add files beside the old ones so a running server never
// sees a half-empty dist/.
rmSync(out, { recursive: true, force: true });
mkdirSync(join(client, 'assets'), { recursive: true });

// The browser receives each catalogue already parsed into ICU message ASTs, so it needs neither
// the ICU parser (about 9 KB gz) nor the time to parse every message it shows while hydrating.
// The catalogue is emitted as one JSON.parse call: smaller than esbuild's JSON module (which adds
// a named export per key) and faster for V8 to load.
const precompiledMessages = {
  name: 'precompiled-messages',
  setup(build) {
    build.onResolve({ filter: /^@formatjs\/icu-messageformat-parser$/ }, () => ({
      path: join(root, 'node_modules/@formatjs/icu-messageformat-parser/no-parser.js'),
    }));
    build.onLoad({ filter: /web[\\/]i18n[\\/]messages[\\/][^\\/]+\.json$/ }, (args) => {
      const raw = JSON.parse(readFileSync(args.path, 'utf8'));
      const compiled = Object.fromEntries(Object.entries(raw).map(([key, text]) => [key, parseIcu(text)]));
      return {
        contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(compiled))});`,
        loader: 'js',
      };
    });
  },
};

/** One browser bundle (code-split ES modules) and its stylesheet. */
async function buildBrowser({ name, source, stylesheet, cssName, chunkNames }) {
  const result = await esbuild.build({
    plugins: [precompiledMessages],
    absWorkingDir: root,
    entryPoints: { [name]: source },
    bundle: true,
    splitting: true,
    format: 'esm',
    target: ['chrome90', 'firefox90', 'safari15'],
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    jsx: 'automatic',
    outdir: join(client, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames,
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  const css = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { [cssName]: stylesheet },
    bundle: true,
    minify: true,
    metafile: true,
    outdir: join(client, 'assets'),
    entryNames: '[name]-[hash]',
    logLevel: 'warning',
  });
  return { metafile: result.metafile, cssFile: Object.keys(css.metafile.outputs)[0] };
}

async function buildClient() {
  const { metafile, cssFile } = await buildBrowser({
    name: 'client',
    source: 'web/client.tsx',
    stylesheet: 'web/styles/app.css',
    cssName: 'app',
    chunkNames: 'c-[hash]',
  });
  return { ...metafile, cssFile };
}

const toUrl = (p) => '/' + relative(client, join(root, p)).split('\\').join('/');

/** An entry's file and static imports, and every lazily loaded chunk by its source file. */
function entryChunks(metafile, source) {
  let entry = null;
  let entryImports = [];
  const chunks = {};
  for (const [file, info] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.js')) continue;
    const imports = info.imports.filter((i) => i.kind === 'import-statement').map((i) => toUrl(i.path));
    if (info.entryPoint === source) {
      entry = toUrl(file);
      entryImports = imports;
    } else if (info.entryPoint) {
      chunks[info.entryPoint] = { file: toUrl(file), imports };
    }
  }
  if (!entry) throw new Error(`${source} missing from metafile`);
  return { entry, entryImports, chunks };
}

// The payment app (spec §2: /app/pay/dist/index.html and /app/neww/dist/index.html): its own
// small entry and stylesheet, not the SPA; catalogues and the phone rules are lazy chunks.
async function buildPayApp() {
  const { metafile, cssFile } = await buildBrowser({
    name: 'payapp',
    source: 'web/payapp/main.tsx',
    stylesheet: 'web/payapp/payapp.css',
    cssName: 'payapp',
    chunkNames: 'p-[hash]',
  });
  const { entry, entryImports, chunks } = entryChunks(metafile, 'web/payapp/main.tsx');
  return { entry, entryImports, chunks, css: toUrl(cssFile) };
}

function manifestFrom(metafile) {
  const { entry, entryImports, chunks } = entryChunks(metafile, 'web/client.tsx');
  const hash = createHash('sha256');
  for (const file of Object.keys(metafile.outputs).sort()) hash.update(readFileSync(join(root, file)));
  hash.update(readFileSync(join(root, metafile.cssFile)));
  const buildId = hash.digest('hex').slice(0, 12);
  const css = relative(client, join(root, metafile.cssFile)).split('\\').join('/');
  return { buildId, builtAt: new Date().toISOString(), entry, entryImports, chunks, css };
}

function precompress(dir) {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) {
      precompress(file);
      continue;
    }
    if (!/\.(js|css|svg|json|webmanifest|txt|map)$/.test(name)) continue;
    const data = readFileSync(file);
    if (data.length < 1024) continue;
    writeFileSync(
      file + '.br',
      brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(file + '.gz', gzipSync(data, { level: 9 }));
  }
}

async function buildServer() {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['server/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    jsx: 'automatic',
    sourcemap: true,
    outfile: join(out, 'server', 'main.js'),
    logLevel: 'warning',
  });
}

async function buildAll() {
  const started = Date.now();
  const metafile = await buildClient();
  const manifest = { ...manifestFrom(metafile), payApp: await buildPayApp() };
  writeFileSync(join(client, 'manifest.json'), JSON.stringify(manifest, null, 2));
  mkdirSync(join(client, 'builds', 'meta'), { recursive: true });
  const latest = { id: manifest.buildId, timestamp: Date.parse(manifest.builtAt) };
  writeFileSync(join(client, 'builds', 'latest.json'), JSON.stringify(latest));
  writeFileSync(
    join(client, 'builds', 'meta', `${manifest.buildId}.json`),
    JSON.stringify({ ...latest, entry: manifest.entry }),
  );
  if (existsSync(join(root, 'web', 'public')))
    cpSync(join(root, 'web', 'public'), join(client, 'public'), { recursive: true });
  // Country flags (country-flag-icons, 3:2 SVGs of half a kilobyte each) at /flags/XX.svg: an
  // image rather than an emoji, which Windows shows as two letters.
  cpSync(join(root, 'node_modules', 'country-flag-icons', '3x2'), join(client, 'public', 'flags'), {
    recursive: true,
  });
  precompress(client);
  await buildServer();
  console.log(`built ${manifest.buildId} in ${Date.now() - started} ms`);
}

await buildAll();
if (watch) {
  const { watch: fsWatch } = await import('node:fs');
  let timer;
  fsWatch(join(root, 'web'), { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => buildAll().catch((e) => console.error(e)), 150);
  });
  console.log('watching web/ for changes');
}
