// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=<dir>): self time by function and by source,
// and inclusive time for functions whose name matches an optional pattern.
//   node bench/cpuprofile.mjs <file.cpuprofile> [top=40] [inclusive-name-regexp] [lines-of-source]
// The last argument prints self time by source line for sources containing it (from V8's position
// ticks: modules loaded through tsx report every function at line 1).
// FROM_S / TO_S (seconds since the profile began) keep only the samples in that window, e.g. the
// steady load of a bench row without the server's start-up; `TIMELINE=1` prints busy % per 0.5 s.
import fs from 'node:fs';

const [file, topArg, inclusiveArg, linesArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpuprofile.mjs <file.cpuprofile> [top] [inclusive-name-regexp]');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Sample time per node from the deltas (µs), attributed to the sample's node.
const selfUs = new Map();
const from = Number(process.env.FROM_S ?? 0) * 1e6;
const to = Number(process.env.TO_S ?? Infinity) * 1e6;
const timeline = new Map();
let at = 0;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0;
  const id = profile.samples[i];
  const us = profile.timeDeltas[i + 1] ?? 0;
  if (nodes.get(id).callFrame.functionName !== '(idle)') timeline.set(Math.floor(at / 5e5), (timeline.get(Math.floor(at / 5e5)) ?? 0) + us);
  if (at < from || at >= to) continue;
  selfUs.set(id, (selfUs.get(id) ?? 0) + us);
}
if (process.env.TIMELINE) console.log([...timeline].map(([k, v]) => `${k / 2}s:${(v / 5e3).toFixed(0)}%`).join(' '));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const idle = [...selfUs].filter(([id]) => nodes.get(id).callFrame.functionName === '(idle)').reduce((a, [, v]) => a + v, 0);
const busy = total - idle;

function where(frame) {
  const url = frame.url || '';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.includes('/server/') || url.includes('/shared/')) return url.replace(/^.*?\/(server|shared)\//, '$1/');
  if (url.startsWith('node:')) return url;
  return url ? url.replace(/^file:\/\//, '') : frame.functionName.startsWith('(') ? frame.functionName : '(native)';
}

const byFn = new Map();
const bySource = new Map();
for (const [id, us] of selfUs) {
  const f = nodes.get(id).callFrame;
  if (f.functionName === '(idle)') continue;
  const key = `${f.functionName || '(anonymous)'}  ${where(f)}:${f.lineNumber + 1}`;
  byFn.set(key, (byFn.get(key) ?? 0) + us);
  const src = where(f);
  bySource.set(src, (bySource.get(src) ?? 0) + us);
}
const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled`);
console.log('\nself time by source');
for (const [k, v] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
console.log('\nself time by function');
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);

if (inclusiveArg) {
  const re = new RegExp(inclusiveArg);
  // Inclusive: a sample counts once for each distinct matching function on its stack.
  const incl = new Map();
  for (const [id, us] of selfUs) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const f = nodes.get(cur).callFrame;
      if (!re.test(f.functionName)) continue;
      const key = `${f.functionName}  ${where(f)}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + us);
    }
  }
  console.log(`\ninclusive time of functions matching /${inclusiveArg}/`);
  for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
}

if (linesArg) {
  const byLine = new Map();
  for (const n of profile.nodes) {
    const src = where(n.callFrame);
    if (!src.includes(linesArg) || !n.positionTicks) continue;
    const perTick = (selfUs.get(n.id) ?? 0) / Math.max(1, n.hitCount);
    for (const t of n.positionTicks) {
      const key = `${src}:${t.line}  ${n.callFrame.functionName || '(anonymous)'}`;
      byLine.set(key, (byLine.get(key) ?? 0) + t.ticks * perTick);
    }
  }
  console.log(`\nself time by line in sources containing ${linesArg}`);
  for (const [k, v] of [...byLine].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
}
