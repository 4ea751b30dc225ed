import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from '../server/deps.ts';

// The demo's data, made the way a store owner would make it: over the REST API of the running
// server with a real account (verified through the link in its welcome email, team verification
// approved as the operator's `refloop team verify` does). What the demo needs again after a restart
// (program ids, the API key and the participant auth secrets, both sealed) is kept in
// DATA_DIR/demo.json; if that file or its programs are gone, everything is made afresh.

/** What the demo keeps about its seeded data. */
export interface DemoState {
  teamId: string;
  referralProgramId: string;
  affiliateProgramId: string;
  /** Sealed (deps.sealer): the owner's REST key, used only by the demo's server-side routes. */
  apiKey: string;
  /** Sealed participant auth secrets by program id, for the "sign in as" buttons (auto-auth hashes). */
  authSecrets: Record<string, string>;
  /** The seeded people a visitor can sign in as. */
  people: { referrer: string; friendPending: string; affiliate: string; customer: string };
  /**
   * The affiliate program's Stripe connection (issue #25), made with a generated signing secret so the
   * partners page's "Pay with Stripe (test)" can sign a Stripe-shaped event locally: the secret
   * (sealed) and the endpoint URL refloop gave. Absent in a demo.json from before it existed.
   */
  stripe?: { secret: string; webhookUrl: string };
  /** The demo team's owner: the console's one-click dev sign-in (demo/dev-sign-in.ts) signs in as them with this sealed password. */
  owner: { email: string; password: string };
}

const OWNER = 'owner@acme-coffee-demo.com';

/**
 * The design theme both demo programs wear: the store page's own colours (demo/pages.ts: accent,
 * ink, muted text, white cards) and its system font, so the widget's buttons and links look like
 * the store's and nothing clashes. `PATCH /campaign/{id}/design` is how an owner sets it.
 */
export const DEMO_THEME = {
  primaryColor: '#8a4b1f',
  textColor: '#1f1a17',
  mutedTextColor: '#6b625c',
  backgroundColor: '#ffffff',
  buttonTextColor: '#ffffff',
  borderRadius: '8px',
  fontFamily: 'SYSTEM',
  isShadowEnabled: true,
} as const;

/** Gives the demo programs the store's design (idempotent: also run for a demo seeded before the theme existed). */
async function designDemo(base: string, key: string, programIds: string[]): Promise<void> {
  for (const id of programIds) await rest(base, key, 'PATCH', `/campaign/${id}/design`, { theme: DEMO_THEME });
}

/** A failed REST call: its status and the API's error object. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** Waits out a budget this response says is used up (`RateLimit: "second";r=0;t=3, …`), so the next call is not refused. */
async function paceAfter(res: Response): Promise<void> {
  let wait = 0;
  for (const m of (res.headers.get('ratelimit') ?? '').matchAll(/;r=(\d+);t=(\d+)/g)) if (m[1] === '0') wait = Math.max(wait, Number(m[2]));
  if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, 10) * 1000));
}

/**
 * Set when the process is told to stop: seeding then starts no new request (one sent to a draining
 * server can hold its drain open), while a request already in flight finishes normally.
 */
let stopping = false;
/** Stops the seeding before its next request (a stop signal arrived while seeding). */
export function abortSeeding(): void {
  stopping = true;
}

/** `fetch`, unless the process is stopping. */
function seedFetch(url: string, init?: RequestInit): Promise<Response> {
  if (stopping) return Promise.reject(new Error('seeding stopped: the server is shutting down'));
  return fetch(url, init);
}

/** A REST call of the demo against its own server; throws a RestError on failure. */
export async function rest(base: string, key: string | null, method: string, p: string, body?: unknown): Promise<any> {
  let res: Response;
  // A well-behaved client: the team's per-second budget is small, so seeding waits as told on 429.
  for (let attempt = 0; ; attempt++) {
    res = await seedFetch(`${base}/v2${p}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    if (res.status !== 429 || attempt >= 10) {
      await paceAfter(res);
      break;
    }
    await res.arrayBuffer();
    const wait = Number(res.headers.get('retry-after')) || 1;
    await new Promise((r) => setTimeout(r, Math.min(wait, 10) * 1000));
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = { message: text.slice(0, 500) };
  }
  if (!res.ok) throw new RestError(res.status, json, `${method} /v2${p}`);
  return json;
}

/**
 * Connects the affiliate program to Stripe as an owner would (BI2), with a signing secret made here:
 * no Stripe account is involved, the demo signs its test events with it (demo/routes.ts).
 */
async function connectStripe(deps: Deps, base: string, key: string, programId: string): Promise<NonNullable<DemoState['stripe']>> {
  const secret = `whsec_${crypto.randomBytes(24).toString('base64url')}`;
  const connection = await rest(base, key, 'POST', `/campaign/${programId}/integrations/stripe`, { webhookSigningSecret: secret });
  return { secret: deps.sealer.seal(secret), webhookUrl: connection.webhookUrl as string };
}

/** Loads the saved demo state if its programs still exist, else seeds everything through the API. */
export async function ensureDemo(deps: Deps, base: string): Promise<DemoState> {
  const file = path.join(deps.config.dataDir, 'demo.json');
  if (fs.existsSync(file)) {
    try {
      const state = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoState;
      const alive = await deps.db.knex('programs').whereIn('id', [state.referralProgramId, state.affiliateProgramId]).whereNot({ status: 'DELETED' }).count({ n: '*' }).first();
      const key = deps.sealer.open(state.apiKey);
      const live = key ? await deps.keys.lookup(key) : null;
      if (Number(alive?.n) === 2 && key && live && live.revokedAt == null && state.owner) {
        await designDemo(base, key, [state.referralProgramId, state.affiliateProgramId]);
        const connected = state.stripe && (await rest(base, key, 'GET', `/campaign/${state.affiliateProgramId}/integrations/stripe`)).state === 'ACTIVE';
        if (!connected) {
          state.stripe = await connectStripe(deps, base, key, state.affiliateProgramId);
          fs.writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
        }
        return state;
      }
    } catch {
      // Unreadable or from another database: seed again.
    }
  }
  const state = await seedDemo(deps, base);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  return state;
}

/** Creates the demo account, its referral and affiliate programs and a few participants. */
export async function seedDemo(deps: Deps, base: string): Promise<DemoState> {
  const email = OWNER.replace('@', `+${Date.now().toString(36)}@`);
  const account = await rest(base, null, 'POST', '/accounts', { email, company: 'Acme Coffee (demo)' });
  const [mail] = await deps.mailer.list({ to: email, limit: 1 });
  const verify = mail?.links.find((l) => l.includes('/verify?'));
  if (!verify) throw new Error('the demo account’s welcome email has no verification link');
  const u = new URL(verify);
  const verified = await seedFetch(`${base}${u.pathname}${u.search}`);
  if (!verified.ok) throw new Error(`verifying the demo account answered ${verified.status}`);
  // The owner's password through the welcome email's set-password link, as the owner would choose
  // it, so the console can be signed in to; and the account-creation key rotated (T5), since the
  // owner's first sign-in replaces an account-creation key and the demo's backend keeps using its own.
  const password = crypto.randomBytes(18).toString('base64url');
  const setPassword = mail!.links.find((l) => l.includes('/set-password?'));
  if (!setPassword) throw new Error('the demo account’s welcome email has no set-password link');
  const link = new URL(setPassword);
  const chosen = await seedFetch(`${base}${link.pathname}${link.search}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ password, confirm: password }) });
  if (chosen.status !== 303) throw new Error(`setting the demo owner’s password answered ${chosen.status}`);
  const key: string = (await rest(base, account.apiKey, 'POST', '/api-key/rotate', {})).apiKey;
  // The operator's approval (`refloop team verify`), so program emails leave. The wire Team has no id.
  const team = { id: (await deps.keys.lookup(key))!.teamId };
  await deps.teams.approveVerification(team.id);

  // A referral program: double-sided reward, credit when the friend buys (CUSTOM trigger).
  const referral = await rest(base, key, 'POST', '/campaigns', {
    type: 'REFERRAL',
    name: 'Acme Coffee: give $10, get $10',
    companyName: 'Acme Coffee',
    currencyISO: 'USD',
    rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10', description: '$10 store credit for you and your friend when they place their first order.' }],
  });
  await rest(base, key, 'PATCH', `/campaign/${referral.id}/installation`, { shareUrl: `${deps.config.publicUrl}/`, referralTrigger: 'CUSTOM' });
  await rest(base, key, 'PATCH', `/campaign/${referral.id}`, { status: 'IN_PROGRESS' });
  const referralSecret = (await rest(base, key, 'POST', `/campaign/${referral.id}/participant-auth-secret`, {})).participantAuthSecret as string;

  const add = (pid: string, body: Record<string, unknown>) => rest(base, key, 'POST', `/campaign/${pid}/participant`, body);
  const alice = await add(referral.id, { email: 'alice@example.com', firstName: 'Alice', lastName: 'Moreau' });
  const bob = await add(referral.id, { email: 'bob@example.com', firstName: 'Bob', referredBy: alice.id, referralStatus: 'CREDIT_PENDING' });
  const carol = await add(referral.id, { email: 'carol@example.com', firstName: 'Carol', referredBy: alice.id, referralStatus: 'CREDIT_PENDING' });
  await rest(base, key, 'POST', `/campaign/${referral.id}/participant/${carol.id}/ref`, {});
  // A leaderboard worth looking at.
  const names = ['Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noor', 'Oskar'];
  for (const [i, name] of names.entries()) {
    const p = await add(referral.id, { email: `${name.toLowerCase()}@example.com`, firstName: name });
    for (let j = 0; j < (i % 4) + 1; j++) {
      const friend = await add(referral.id, { email: `${name.toLowerCase()}.friend${j}@example.com`, referredBy: p.id, referralStatus: 'CREDIT_PENDING' });
      await rest(base, key, 'POST', `/campaign/${referral.id}/participant/${friend.id}/ref`, {});
    }
  }

  // An affiliate program: 20% of every sale, approved affiliates only.
  const affiliate = await rest(base, key, 'POST', '/campaigns', {
    type: 'AFFILIATE',
    name: 'Acme Coffee partners',
    companyName: 'Acme Coffee',
    currencyISO: 'USD',
    rewards: [{ type: 'AFFILIATE', title: '20% of every sale', commissionStructure: { type: 'PERCENT', percent: 20, event: 'SALE', duration: 'FOREVER' } }],
  });
  await rest(base, key, 'PATCH', `/campaign/${affiliate.id}/installation`, { shareUrl: `${deps.config.publicUrl}/partners` });
  await rest(base, key, 'PATCH', `/campaign/${affiliate.id}`, { status: 'IN_PROGRESS' });
  const affiliateSecret = (await rest(base, key, 'POST', `/campaign/${affiliate.id}/participant-auth-secret`, {})).participantAuthSecret as string;
  const dana = await add(affiliate.id, { email: 'dana@example.com', firstName: 'Dana', lastName: 'Okafor', isAffiliate: true });
  const erin = await add(affiliate.id, { email: 'erin@example.com', firstName: 'Erin', referredBy: dana.id });
  try {
    await rest(base, key, 'POST', `/campaign/${affiliate.id}/participant/${erin.id}/transaction`, {
      currency: 'USD',
      grossAmount: 4800,
      paidAt: Date.now(),
      externalId: `demo-order-${Date.now().toString(36)}`,
      description: 'Two bags of house blend',
    });
  } catch (err) {
    deps.log.warn('demo: recording the seeded sale failed', { error: (err as Error).message });
  }

  await designDemo(base, key, [referral.id, affiliate.id]);
  const stripe = await connectStripe(deps, base, key, affiliate.id);
  return {
    teamId: team.id,
    referralProgramId: referral.id,
    affiliateProgramId: affiliate.id,
    apiKey: deps.sealer.seal(key),
    authSecrets: { [referral.id]: deps.sealer.seal(referralSecret), [affiliate.id]: deps.sealer.seal(affiliateSecret) },
    people: { referrer: alice.email, friendPending: bob.email, affiliate: dana.email, customer: erin.email },
    owner: { email, password: deps.sealer.seal(password) },
    stripe,
  };
}
