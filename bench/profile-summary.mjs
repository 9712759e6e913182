// Summarises a V8 .cpuprofile (BENCH_CPU_PROF, see servers.ts): self time by package and by
// function, and (with --inclusive) time spent in each function and everything it called.
// --last=S keeps only the last S seconds of the profile (one load after the site's start-up).
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [--inclusive] [--top=40] [--last=S]
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const inclusive = process.argv.includes('--inclusive');
const topN = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 40);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const lastArg = process.argv.find((a) => a.startsWith('--last='));
const from = lastArg ? p.endTime - Number(lastArg.slice(7)) * 1e6 : -Infinity;
const self = new Map();
let at = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  at += p.timeDeltas[i] ?? 0;
  if (at >= from) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
}
const busy = [...self].filter(([id]) => byId.get(id).callFrame.functionName !== '(idle)');
const total = busy.reduce((a, [, t]) => a + t, 0);

const label = (cf) =>
  `${cf.functionName || '(anon)'} ${(cf.url || '(native)').split('/').slice(-2).join('/')}:${cf.lineNumber}`;
const pkgOf = (cf) => {
  const url = cf.url || '(native)';
  const m = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.includes('/dist/')) return 'app';
  return url.startsWith('node:') ? url : cf.functionName || url;
};
const top = (m) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([n, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${n}`)
    .join('\n');

console.log(`busy time ${(total / 1e6).toFixed(1)} s (idle left out); shares are of it`);
if (inclusive) {
  const incl = new Map();
  for (const [id, t] of busy) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const key = label(byId.get(cur).callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + t);
    }
  }
  console.log('== inclusive, by function');
  console.log(top(incl));
} else {
  const fn = new Map();
  const pkg = new Map();
  for (const [id, t] of busy) {
    const cf = byId.get(id).callFrame;
    fn.set(label(cf), (fn.get(label(cf)) ?? 0) + t);
    pkg.set(pkgOf(cf), (pkg.get(pkgOf(cf)) ?? 0) + t);
  }
  console.log('== self, by package');
  console.log(top(pkg));
  console.log('== self, by function');
  console.log(top(fn));
}
