// Summarises a V8 .cpuprofile (BENCH_CPU_PROF, see servers.ts): self time by package and by function.
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas;
const samples = p.samples;
for (let i = 0; i < samples.length; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map(),
  pkg = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const url = cf.url || '(native)';
  const m = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  const pk = m
    ? m[1]
    : url.includes('/dist/')
      ? 'app:' + url.split('/dist/')[1].split('/').slice(0, 2).join('/')
      : url.startsWith('node:')
        ? url
        : cf.functionName || url;
  const key = `${cf.functionName || '(anon)'} ${url.split('/').slice(-2).join('/')}:${cf.lineNumber}`;
  fn.set(key, (fn.get(key) ?? 0) + t);
  pkg.set(pk, (pkg.get(pk) ?? 0) + t);
}
const top = (m, k) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([n, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${n}`)
    .join('\n');
console.log('== by package');
console.log(top(pkg, 25));
console.log('== by function');
console.log(top(fn, 40));
