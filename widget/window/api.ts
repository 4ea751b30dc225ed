// The participant API client (docs/participant-api.md). Types come from shared/schemas/mobile*.ts
// as TYPE imports only: zod never reaches the widget bundle.
import ky from 'ky';
import { preview } from './state.ts';
import type { z } from 'zod';
import type * as M from '../../shared/schemas/mobile.ts';
import type * as MP from '../../shared/schemas/mobile-participants.ts';
import type * as MC from '../../shared/schemas/mobile-campaign.ts';
import type * as MW from '../../shared/schemas/mobile-window.ts';
import type { referralList } from '../../shared/schemas/referral.ts';
import type { participantRewardList } from '../../shared/schemas/reward.ts';
import type { CampaignDesign } from '../../shared/schemas/program-config-design.ts';
import type { DeepPartial } from '../../shared/schemas/program-config.ts';
import { STORE_KEYS, type WidgetRuntime } from '../runtime.ts';
import type * as A from './affiliate-types.ts';

/** The signed-in participant as the participant API shows them. */
export type Participant = z.infer<typeof M.mobileParticipant>;
/**
 * The window payload (MW1: participant, share, rewards, leaderboard, payout providers, traffic,
 * affiliate summary, type, languages and the design document). `upfrontDiscount` is the referral
 * program's referred-friend discount (docs/integrations.md "Codes"), null when it has none.
 */
export type WindowPayload = Omit<z.infer<typeof MW.mobileWindow>, 'participant'> & {
  participant: Participant | null;
  design?: DeepPartial<CampaignDesign>;
  type?: 'REFERRAL' | 'AFFILIATE';
  languages?: string[];
  upfrontDiscount?: UpfrontDiscount[] | UpfrontDiscount | null;
};
/** `getUpfrontDiscount` result (web-sdk.md §6). */
export interface UpfrontDiscount {
  integration: 'stripe' | 'chargebee' | 'recurly';
  promotionCode: string;
  /** The billing system's coupon id when the owner gave one (the reward's metadata.stripeCouponId), else null. */
  couponId: string | null;
}
/** MC1 answer. */
export type Campaign = z.infer<typeof MC.mobileCampaign>;
/** ML1 answer. */
export type Leaderboard = z.infer<typeof MC.mobileLeaderboard>;
/** MRF1 answer. */
export type ReferralList = z.infer<typeof referralList>;
/** MRW1 answer. */
export type RewardList = z.infer<typeof participantRewardList>;
/** MSM1 answer. */
export type ReferralSummary = z.infer<typeof MC.mobileReferralSummary>;
/** MP2 body as the caller writes it. */
export type ParticipantInput = z.input<typeof MP.mobileParticipantCreate>;
/** MP3 body as the caller writes it. */
export type ReferredInput = z.input<typeof MP.mobileReferredParticipantCreate>;
/** MP2 answer. */
export type Created = z.infer<typeof MP.mobileParticipantCreated>;
/** MP3 answer. */
export type ReferredCreated = z.infer<typeof MP.mobileReferredParticipantCreated>;
/** MI1 body. */
export type InvitesInput = z.input<typeof MC.mobileInvitesSend>;
/** Share types MSH1 accepts. */
export type ShareType = z.infer<typeof MP.mobileShareTrack>['type'];

/** A participant-API error: the REST error object's status, first field and code. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

interface StoredSession {
  token: string;
  expiresAt: number;
}
type Body = Record<string, unknown>;

/**
 * One client per booted runtime: session token, participant token and the operations the first
 * load uses; the others are functions of ops.ts (issue #32), a chunk of the panels and methods that call them.
 */
export class Api {
  private session?: StoredSession;
  private sessionPromise?: Promise<string>;
  /** The participant token, or undefined when nobody is signed in. */
  token?: string;
  private http;

  constructor(private rt: WidgetRuntime) {
    this.http = ky.create({ prefixUrl: rt.apiBase, throwHttpErrors: false, retry: { limit: 2, methods: ['get'] }, timeout: 15_000 });
  }

  /** Loads the stored participant token (boot). */
  async load(): Promise<void> {
    this.token = (await this.rt.store.get<string>(STORE_KEYS.participantToken)) || undefined;
    this.session = await this.rt.store.get<StoredSession>(STORE_KEYS.sessionToken);
  }

  /** Keeps (or with undefined, forgets) the participant token. */
  async setToken(token: string | undefined): Promise<void> {
    this.token = token;
    await (token ? this.rt.store.set(STORE_KEYS.participantToken, token) : this.rt.store.del(STORE_KEYS.participantToken));
  }

  /** Forgets both tokens (shutdown). */
  async clear(): Promise<void> {
    this.session = undefined;
    await Promise.all([this.setToken(undefined), this.rt.store.del(STORE_KEYS.sessionToken)]);
  }

  private sessionToken(): Promise<string> {
    // A minute of margin so a token never expires between here and the server.
    if (this.session && this.session.expiresAt - 60_000 > Date.now()) return Promise.resolve(this.session.token);
    return (this.sessionPromise ??= (async () => {
      try {
        const headers: Record<string, string> = { 'X-Program-Id': this.rt.programId };
        if (this.rt.publicKey) headers['X-Public-Key'] = this.rt.publicKey;
        const res = await this.http.post('sessions', { headers, json: { instanceId: this.rt.instanceId } });
        const s = await read<z.infer<typeof M.mobileSession>>(res);
        this.session = { token: s.sessionToken, expiresAt: s.expiresAt };
        await this.rt.store.set(STORE_KEYS.sessionToken, this.session);
        return s.sessionToken;
      } finally {
        this.sessionPromise = undefined;
      }
    })());
  }

  /** Calls one operation; a session the server calls expired or invalid is replaced once, then retried. */
  async call<T>(method: 'get' | 'post' | 'patch', path: string, json?: Body, searchParams?: Record<string, string | number>, retried = false): Promise<T> {
    // A preview page of the server (referral-flow screenshots) answers from the data it embeds and
    // sends nothing: no session, no visit, no write.
    if (preview) {
      if (method === 'get' && path in preview.responses) return preview.responses[path] as T;
      throw new ApiError('preview', 404);
    }
    const headers: Record<string, string> = { 'X-Session-Token': await this.sessionToken() };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const res = await this.http(path, { method, headers, json, searchParams });
    try {
      return await read<T>(res);
    } catch (e) {
      const err = e as ApiError;
      if (!retried && (err.status === 401 || err.status === 403) && err.field === 'X-Session-Token') {
        this.session = undefined;
        return this.call(method, path, json, searchParams, true);
      }
      // A participant token the server no longer accepts is dropped: the visitor is signed out.
      if (err.status === 403 && err.field === 'Authorization') await this.setToken(undefined);
      throw err;
    }
  }

  /** MW1. */
  window = () => this.call<WindowPayload>('get', 'window');
  /** MC1. */
  campaign = () => this.call<Campaign>('get', 'campaign');
  /** MP1. */
  participant = () => this.call<Participant>('get', 'participant');
  /** MA1. */
  autoAuth = (email: string, hash: string) => this.call<z.infer<typeof M.mobileParticipantToken>>('post', 'participant-token', { email, hash });
  /** MP4. */
  updateParticipant = (body: z.input<typeof MP.mobileParticipantUpdate>) => this.call<Participant>('patch', 'participant', body);
  /** MSH1. */
  trackShare = (type: ShareType) => this.call<z.infer<typeof MP.mobileShareTracked>>('post', 'participant/shares', { type });
  /** MRW1. */
  rewards = (q: { limit?: number; nextId?: string } = {}) => this.call<RewardList>('get', 'participant/rewards', undefined, q);
  /** MRW2. */
  markRewardsRead = (rewardIds?: string[]) => this.call<z.infer<typeof MC.mobileRewardsReadResult>>('post', 'participant/rewards/read', rewardIds ? { rewardIds } : {});
  // Affiliate side (issue #6): shapes from shared/schemas/{commission,payout,affiliate}.ts.
  /** Affiliate summary. */
  affiliateSummary = () => this.call<A.AffiliateSummary>('get', 'participant/affiliate-summary');
}

/** The body of a 200, or an ApiError built from the REST error object. */
async function read<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => null)) as (T & { message?: string; errors?: Array<{ field?: string; code?: string }> }) | null;
  if (res.ok) return body as T;
  const first = body?.errors?.[0];
  throw new ApiError(body?.message || `HTTP ${res.status}`, res.status, first?.field, first?.code);
}
