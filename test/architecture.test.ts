import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The dependency rules of ARCHITECTURE.md, checked on every run of `npm test` (issue #22): each
// server file belongs to a layer, and the domain's bounded contexts are layers of their own in a
// fixed order; a file may import only from its own layer or a lower one (type imports and lazy
// `import()` included). Separately, no two files may need each other at load time: static value
// imports form no cycle anywhere in server/, shared/, widget/ or console/.

const root = path.resolve(import.meta.dirname, '..');

/** The domain's contexts, lowest first (server/domain/<context>/README.md says what each owns). */
export const CONTEXTS = ['platform', 'programs', 'participants', 'messaging', 'referral', 'affiliate', 'billing', 'analytics', 'participant-api', 'imports'];

/** A file's layer: a larger number may import a smaller or equal one, never the reverse. */
function layerOf(rel: string): { rank: number; name: string } | null {
  if (rel.startsWith('shared/')) return { rank: 0, name: 'shared' };
  if (rel.startsWith('widget/')) return { rank: 1, name: 'widget' };
  if (rel.startsWith('console/')) return { rank: 1, name: 'console' };
  if (!rel.startsWith('server/')) return null;
  const inServer = rel.slice('server/'.length);
  if (inServer.startsWith('domain/')) {
    const ctx = inServer.split('/')[1]!;
    const i = CONTEXTS.indexOf(ctx);
    return i < 0 ? { rank: -1, name: `domain/${ctx} (not a context)` } : { rank: 10 + i, name: `domain/${ctx}` };
  }
  if (inServer.startsWith('db/') || ['config.ts', 'clock.ts', 'crypto.ts', 'errors.ts', 'log.ts', 'storage.ts', 'redis.ts'].includes(inServer)) return { rank: 2, name: 'server base' };
  if (inServer.startsWith('http/') || inServer.startsWith('mcp/')) return { rank: 30, name: 'http/mcp' };
  return { rank: 40, name: 'composition (app, deps, main, cli)' };
}

interface Edge {
  to: string;
  /** Needed when the importing module loads: a static import of at least one value. */
  load: boolean;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

// TypeScript 7 has no compiler API in JavaScript; the sources are formatted, so every import and
// re-export starts a line, and `import type` / `{ type X }` mark what is erased at load time.
const STATIC = /^(?:import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function edgesOf(rel: string): Edge[] {
  const text = fs.readFileSync(path.join(root, rel), 'utf8');
  const edges: Edge[] = [];
  const add = (spec: string, load: boolean) => {
    if (spec.startsWith('.')) edges.push({ to: path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)), load });
  };
  for (const m of text.matchAll(STATIC)) {
    const clause = m[2]?.trim() ?? '';
    const names = /^\{([\s\S]*)\}$/.exec(clause)?.[1]?.split(',').map((n) => n.trim()).filter(Boolean);
    const typeOnly = !!m[1] || (!!names && names.length > 0 && names.every((n) => n.startsWith('type ')));
    add(m[3]!, !typeOnly);
  }
  for (const m of text.matchAll(DYNAMIC)) add(m[1]!, false);
  return edges;
}

const files = ['server', 'shared', 'widget', 'console'].flatMap(sourceFiles);
const graph = new Map(files.map((f) => [f, edgesOf(f)]));

/** Strongly connected components of more than one file over load-time edges (Tarjan). */
function loadCycles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const e of graph.get(v) ?? []) {
      if (!e.load || !graph.has(e.to)) continue;
      if (!index.has(e.to)) {
        connect(e.to);
        low.set(v, Math.min(low.get(v)!, low.get(e.to)!));
      } else if (onStack.has(e.to)) low.set(v, Math.min(low.get(v)!, index.get(e.to)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const f of graph.keys()) if (!index.has(f)) connect(f);
  return out;
}

describe('architecture (issue #22)', () => {
  it('reads the whole tree', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(files).toContain('server/domain/referral/referral-triggers.ts');
  });

  it('every domain file lives in one of the contexts, and each context says what it owns', () => {
    const stray = files.filter((f) => f.startsWith('server/domain/') && layerOf(f)!.rank < 0);
    expect(stray).toEqual([]);
    for (const ctx of CONTEXTS) {
      const readme = fs.readFileSync(path.join(root, 'server/domain', ctx, 'README.md'), 'utf8');
      expect(readme, ctx).toMatch(/may import/i);
    }
  });

  it('no file imports from a higher layer or a later context', () => {
    const upward: string[] = [];
    for (const [from, edges] of graph) {
      const a = layerOf(from);
      if (!a) continue;
      for (const e of edges) {
        const b = layerOf(e.to);
        if (!b) {
          if (!e.to.startsWith('node_modules')) upward.push(`${from} → ${e.to} (outside server/, shared/, widget/)`);
          continue;
        }
        // The browser apps (widget, console) import only shared/ and themselves; nothing imports them.
        const browser = (n: string) => n === 'widget' || n === 'console';
        const crossesSides = (a.name === 'shared' && b.name !== 'shared') || (browser(a.name) && b.name !== 'shared' && b.name !== a.name) || (!browser(a.name) && browser(b.name));
        if (b.rank > a.rank || crossesSides) upward.push(`${from} (${a.name}) → ${e.to} (${b.name})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('no import cycle at load time', () => {
    expect(loadCycles()).toEqual([]);
  });
});
