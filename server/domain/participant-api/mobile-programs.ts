import type { Db } from '../../db/connect.ts';
import type { TeamBilling } from '../platform/plans.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { completedDocument, embedHosts, mobilePublicKey } from '../programs/program-config.ts';
import { readTranslations, type Translation } from '../programs/program-translations.ts';
import { deepFreeze } from '../../../shared/freeze.ts';
import { attributionOptions } from './visit-receipts.ts';

/** What the participant API needs to know about a program on every call, computed once per load. */
export interface MobileProgram {
  program: Program;
  team: TeamBilling & { disabled: boolean };
  /** Hosts whose pages may call (with `*.` wildcards; this server's own host whenever there is a list); null = any site. */
  hosts: string[] | null;
  /** The Mobile SDK key while the mobile SDK is enabled, else null (native apps are refused). */
  publicKey: string | null;
  cookieWindowMs: number;
  attributionModel: 'FIRST_CLICK' | 'LAST_CLICK';
  /** The owner's own texts by additional language (frozen; issue #27), read with the view so a reader's language costs no query per call. */
  translations: ReadonlyMap<string, Translation>;
}

const SQL = `SELECT p.*, t.disabled AS team_disabled, t.plan AS team_plan, t.has_payment_method AS team_has_payment_method, t.trial_ends_at AS team_trial_ends_at
  FROM programs p JOIN teams t ON t.id = p.team_id WHERE p.id = ?`;
const MAX_ENTRIES = 10_000;

/**
 * Programs as the participant API sees them, cached per process for a few seconds (monotonic time),
 * so the hot paths (visits, sessions) do not read the program on every call. Unknown ids are cached
 * too, so random ids cannot turn into one query each. A configuration change reaches every process
 * within `ttlMs`.
 */
export class MobilePrograms {
  readonly #cache = new Map<string, { at: number; view: MobileProgram | null }>();

  /**
   * `ownHost`: this server's host (PUBLIC_URL). Its hosted share page (`/r/{programId}`) runs the
   * widget, so it may call for every program, also one that lists the sites that may embed it.
   */
  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly ownHost: string | null = null,
  ) {}

  /** The program's view, or null when it does not exist or was deleted. */
  async get(programId: string): Promise<MobileProgram | null> {
    const now = performance.now();
    const hit = this.#cache.get(programId);
    if (hit && now - hit.at < this.ttlMs) return hit.view;
    const view = /^[A-Za-z0-9_-]{1,64}$/.test(programId) ? await this.#load(programId) : null;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.delete(programId);
    this.#cache.set(programId, { at: now, view });
    return view;
  }

  /** The cached view while fresh (null: no such program), undefined when it has to be read: the synchronous check of the visit fast path. */
  peek(programId: string): MobileProgram | null | undefined {
    const hit = this.#cache.get(programId);
    return hit && performance.now() - hit.at < this.ttlMs ? hit.view : undefined;
  }

  /** Drops a cached program (after a change made in this process). */
  forget(programId: string): void {
    this.#cache.delete(programId);
  }

  async #load(programId: string): Promise<MobileProgram | null> {
    const row = await this.db.get<Record<string, any>>(SQL, programId);
    if (!row || row.status === 'DELETED') return null;
    // Frozen, so the completed documents derived from it are computed once per cached view (completedDocument).
    const program = toProgram(row);
    deepFreeze(program.documents);
    const installation = completedDocument('installation', program, program.documents.installation);
    const { cookieWindowMs, model } = attributionOptions(program);
    const hosts = embedHosts(installation);
    if (hosts && this.ownHost && !hosts.includes(this.ownHost)) hosts.push(this.ownHost);
    return {
      program,
      team: {
        disabled: Boolean(row.team_disabled),
        plan: row.team_plan,
        hasPaymentMethod: Boolean(row.team_has_payment_method),
        trialEndsAt: row.team_trial_ends_at == null ? null : Number(row.team_trial_ends_at),
      },
      hosts,
      publicKey: mobilePublicKey(program),
      cookieWindowMs,
      attributionModel: model,
      // A second read only on a miss, and only for a program with additional languages.
      translations: await readTranslations(this.db, this.db.knex, program),
    };
  }
}

/** True when a page on `host` may call for this program: no list, an exact host, or a `*.` wildcard's subdomain. */
export function hostAllowed(hosts: string[] | null, host: string): boolean {
  if (hosts === null) return true;
  const h = host.toLowerCase();
  for (const allowed of hosts) {
    if (allowed === h) return true;
    if (allowed.startsWith('*.') && h.endsWith(allowed.slice(1))) return true;
  }
  return false;
}
