import type { Knex } from 'knex';

// References from program copy to reward-configuration metadata (rest-v2 §3.4, behaviour note 12):
// `{{campaignReward[<rewardId>].metadata.<key>}}`, also with the id quoted and the key in brackets
// (`{{campaignReward['crew_x'].metadata['gift code']}}`), optionally with a `|fallback`. Program copy
// is every string of the program's design and emails documents.

/** One reference found in program copy. */
export interface RewardReference {
  /** Where: `emails.goalAchieved.body`, `design.header.title`, … */
  field: string;
  rewardId: string;
  key: string;
}

/** The documents that hold program copy. */
export const COPY_DOCUMENTS = ['design', 'emails'] as const;

// Groups: the text before the key (with the id), the key (after a dot, or quoted in brackets), the rest.
const REFERENCE =
  /(?<head>\{\{\s*campaignReward\[\s*['"]?(?<id>[A-Za-z0-9_-]{1,64})['"]?\s*\]\s*\.\s*metadata\s*)(?:\.\s*(?<dotted>[^\s.|{}[\]'"]+)|\[\s*(?:'(?<single>[^'{}]+)'|"(?<double>[^"{}]+)")\s*\])(?<tail>\s*(?:\|[^{}]*)?\}\})/g;

type Groups = { head: string; id: string; dotted?: string; single?: string; double?: string; tail: string };
const keyOf = (g: Groups) => (g.dotted ?? g.single ?? g.double)!;

/** Every string of a JSON value with its dotted path (array items by index). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* strings(value[i], `${path}.${i}`);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, `${path}.${k}`);
}

/** The references to `rewardId` in the given documents (keyed by document name). */
export function findRewardReferences(documents: Record<string, unknown>, rewardId: string): RewardReference[] {
  const out: RewardReference[] = [];
  for (const [name, doc] of Object.entries(documents)) {
    for (const [field, text] of strings(doc, name)) {
      if (!text.includes('campaignReward')) continue;
      for (const m of text.matchAll(REFERENCE)) {
        const g = m.groups as Groups;
        if (g.id === rewardId) out.push({ field, rewardId, key: keyOf(g) });
      }
    }
  }
  return out;
}

/** Copies of the documents with references to renamed keys of `rewardId` rewritten (`renames`: old key → new key); null when nothing changed. */
export function renameRewardReferences(documents: Record<string, unknown>, rewardId: string, renames: Map<string, string>): Record<string, unknown> | null {
  let changed = false;
  const rewrite = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!value.includes('campaignReward')) return value;
      return value.replace(REFERENCE, (...args: unknown[]) => {
        const whole = args[0] as string;
        const g = args[args.length - 1] as Groups;
        const to = g.id === rewardId ? renames.get(keyOf(g)) : undefined;
        if (to === undefined) return whole;
        changed = true;
        // Keep the author's formatting and fallback; only the key changes, in a form that can hold it.
        const accessor = /^[^\s.|{}[\]'"]+$/.test(to) ? `.${to}` : to.includes("'") ? `["${to}"]` : `['${to}']`;
        return `${g.head}${accessor}${g.tail}`;
      });
    }
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v)]));
    return value;
  };
  const out = Object.fromEntries(Object.entries(documents).map(([name, doc]) => [name, rewrite(doc)]));
  return changed ? out : null;
}

/**
 * Which removed metadata keys were renamed: a removed key whose value is carried by exactly one added
 * key, and that value by no other removed key (a PATCH replaces `metadata` whole, so a rename is
 * only recognisable by its value).
 */
export function metadataRenames(before: Record<string, string>, after: Record<string, string>): { renames: Map<string, string>; removed: string[] } {
  const removed = Object.keys(before).filter((k) => !(k in after));
  const added = Object.keys(after).filter((k) => !(k in before));
  const renames = new Map<string, string>();
  for (const k of removed) {
    const targets = added.filter((a) => after[a] === before[k]);
    const rivals = removed.filter((r) => before[r] === before[k]);
    if (targets.length === 1 && rivals.length === 1) renames.set(k, targets[0]!);
  }
  return { renames, removed: removed.filter((k) => !renames.has(k)) };
}

/**
 * Merge-tag values for the reward-metadata references in `texts`, keyed by the tag name exactly as
 * `renderTags` reads it (what stands between `{{` and `|` or `}}`, trimmed); a reference to a key or
 * reward that does not exist renders as its fallback. Reads the program's rewards only when a text
 * refers to one.
 */
export async function rewardMetadataVars(q: Knex | Knex.Transaction, programId: string, texts: string[]): Promise<Record<string, string>> {
  const refs: Array<{ name: string; id: string; key: string }> = [];
  for (const text of texts) {
    if (!text.includes('campaignReward')) continue;
    for (const m of text.matchAll(REFERENCE)) {
      const g = m.groups as Groups;
      refs.push({ name: m[0].slice(2, -2).split('|')[0]!.trim(), id: g.id, key: keyOf(g) });
    }
  }
  if (!refs.length) return {};
  const rows: Array<{ id: string; metadata: string }> = await q('reward_configs')
    .where({ program_id: programId })
    .whereNull('deleted_at')
    .whereIn('id', [...new Set(refs.map((r) => r.id))])
    .select('id', 'metadata');
  const byId = new Map(rows.map((r) => [r.id, JSON.parse(r.metadata) as Record<string, string>]));
  const out: Record<string, string> = {};
  for (const r of refs) {
    const value = byId.get(r.id)?.[r.key];
    if (value !== undefined) out[r.name] = String(value);
  }
  return out;
}
