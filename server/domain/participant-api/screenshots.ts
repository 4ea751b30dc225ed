import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ParticipantApiServices as Deps } from './services.ts';
import type { Program } from '../programs/programs.ts';
import { MobileParticipants } from './mobile-participants.ts';
import { programLanguages } from '../participants/model.ts';
import { NotFoundError, UnavailableError } from '../../errors.ts';
import { safeEqual } from '../../crypto.ts';

const hmac = (key: Buffer, text: string) => crypto.createHmac('sha256', key).update(text).digest();

// C6 `POST /campaign/{id}/referral-flow-screenshots` (rest-v2 §3.2, mcp.md tool 22): the referrer's
// window and the referred friend's view of a program, rendered by our own widget in headless
// Chromium from the saved configuration (no URL or HTML input is accepted), stored as JPEGs behind
// signed links that expire after 15 minutes. The pages Chromium opens are preview pages of this
// server, reachable only with a signed token that lasts five minutes.

/** How long a screenshot link works (the official fixture: 15 minutes). */
export const SCREENSHOT_TTL_MS = 15 * 60_000;
/** How long a preview page token works: one capture. */
const PREVIEW_TTL_MS = 5 * 60_000;
const VIEWS = [
  { view: 'referrer', label: 'Referrer window' },
  { view: 'referredFriend', label: 'Referred friend view' },
] as const;
const WIDTH = 1024;
const HEIGHT = 768;

/** The two previews: which view, and the program it shows. */
export type PreviewView = (typeof VIEWS)[number]['view'];

/** The C6 answer (rest-v2 §2.28 ReferralFlowScreenshots). */
export interface ReferralFlowScreenshots {
  generatedAt: string;
  expiresAt: string;
  screenshots: Array<{ view: PreviewView; label: string; url: string; expiresAt: string; width: number; height: number; contentType: 'image/jpeg' }>;
}

/** Renders previews with Debian's Chromium (playwright-core), one capture at a time per process. */
export class Screenshots {
  /** Where Chromium reaches this server; set by whoever listens (server/main.ts, the test helper). */
  localBase: string | null = null;
  #busy: Promise<unknown> = Promise.resolve();
  readonly #key: Buffer;

  constructor(
    private readonly deps: Pick<Deps, 'config' | 'clock' | 'log' | 'storage'>,
    private readonly full: () => Deps,
    secret: string,
  ) {
    this.#key = crypto.createHash('sha256').update(`screenshots\n${secret}`).digest();
  }

  /** The Chromium binary, or null when this machine has none. */
  get chromium(): string | null {
    const p = this.deps.config.chromiumPath;
    return p && fs.existsSync(p) ? p : null;
  }

  /** Captures both views of the program; 503 with a clear message without Chromium. */
  async capture(program: Program): Promise<ReferralFlowScreenshots> {
    const chromium = this.chromium;
    if (!chromium) {
      throw new UnavailableError(`Screenshots need Chromium, which this server does not have at ${this.deps.config.chromiumPath || '(CHROMIUM_PATH unset)'}. Install Debian's chromium package or set CHROMIUM_PATH.`);
    }
    // One browser at a time: a capture is ≈ 150 MB of memory for a second or two.
    const run = this.#busy.then(() => this.#capture(program, chromium));
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #capture(program: Program, executablePath: string): Promise<ReferralFlowScreenshots> {
    const now = this.deps.clock.now();
    const base = (this.localBase ?? this.deps.config.publicUrl).replace(/\/+$/, '');
    const token = this.previewToken(program.id, Date.now() + PREVIEW_TTL_MS);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    const shots: ReferralFlowScreenshots['screenshots'] = [];
    const expiresAt = now + SCREENSHOT_TTL_MS;
    try {
      const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, ignoreHTTPSErrors: true, reducedMotion: 'reduce' });
      for (const { view, label } of VIEWS) {
        const page = await context.newPage();
        await page.goto(`${base}/preview/${encodeURIComponent(token)}/${view}`, { waitUntil: 'load', timeout: 20_000 });
        // The preview page sets data-ready once the widget has drawn the view (or gave up).
        await page.waitForSelector('html[data-ready]', { timeout: 20_000 }).catch(() => undefined);
        const image = await page.screenshot({ type: 'jpeg', quality: 80 });
        await page.close();
        const id = crypto.randomBytes(12).toString('hex');
        const tmp = path.join(os.tmpdir(), `refloop-shot-${id}.jpg`);
        fs.writeFileSync(tmp, image);
        await this.deps.storage.putFile(`screenshots/${id}.jpg`, tmp, 'image/jpeg');
        shots.push({ view, label, url: this.imageUrl(id, expiresAt), expiresAt: new Date(expiresAt).toISOString(), width: WIDTH, height: HEIGHT, contentType: 'image/jpeg' });
      }
    } finally {
      await browser.close().catch(() => undefined);
    }
    this.deps.log.info('referral flow screenshots', { programId: program.id, count: shots.length });
    return { generatedAt: new Date(now).toISOString(), expiresAt: new Date(expiresAt).toISOString(), screenshots: shots };
  }

  /**
   * A preview page token: the program, an expiry and, when given, the language the page is drawn in
   * (a program language code: letters and a hyphen, never a dot), all under the signature.
   */
  previewToken(programId: string, exp: number, language?: string | null): string {
    const body = language ? `${programId}.${exp}.${language}` : `${programId}.${exp}`;
    return `${body}.${hmac(this.#key, `preview\n${body}`).toString('base64url')}`;
  }

  /** The program and language (null: the base language) a valid preview token names; null for a forged or expired one. */
  openPreviewToken(token: string): { programId: string; language: string | null } | null {
    const m = /^([A-Za-z0-9_-]{1,64})\.(\d{1,16})(?:\.([A-Za-z]{2,3}(?:-[A-Za-z]{2,4})?))?\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return null;
    const [, programId, exp, language, sig] = m;
    if (Number(exp) < Date.now()) return null;
    const body = language ? `${programId}.${exp}.${language}` : `${programId}.${exp}`;
    return safeEqual(sig!, hmac(this.#key, `preview\n${body}`).toString('base64url')) ? { programId: programId!, language: language ?? null } : null;
  }

  /** A signed, expiring link to a stored screenshot. */
  imageUrl(id: string, exp: number): string {
    return `${this.deps.config.publicUrl}/files/screenshots/${id}.jpg?exp=${exp}&sig=${hmac(this.#key, `image\n${id}\n${exp}`).toString('base64url')}`;
  }

  /** Checks an image link (by the server clock: links expire in real time). */
  verifyImage(id: string, exp: string, sig: string): boolean {
    if (!/^[a-f0-9]{24}$/.test(id) || !/^\d{1,16}$/.test(exp) || Number(exp) < this.deps.clock.now()) return false;
    return safeEqual(sig, hmac(this.#key, `image\n${id}\n${exp}`).toString('base64url'));
  }

  /**
   * What the preview page hands the widget, by participant-API path: the real window payload and
   * campaign of the program (design, rewards, share channels, leaderboard), with a sample
   * participant who exists nowhere signed in for the referrer view; and the language it is drawn in.
   * The window is the one a reader of `language` gets (issue #27: default texts in it, the owner's
   * texts for it, the launcher's words): `language` when it is one of the program's languages, else
   * (none given, or one the program no longer offers) the base language. The sample participant
   * reads that language too.
   */
  async previewPayload(programId: string, view: PreviewView, language?: string | null): Promise<{ program: Program; language: string; responses: Record<string, unknown> }> {
    const deps = this.full();
    const programView = await deps.mobilePrograms.get(programId);
    if (!programView || programView.program.status === 'DELETED') throw new NotFoundError('This preview is not available.');
    const { base, all } = programLanguages(programView.program);
    const shown = language && all.includes(language) ? language : base;
    const mobile = new MobileParticipants(deps);
    // A visitor whose browser asks for exactly `shown`, one of the program's languages: MW1 picks it.
    const [win, campaign] = await Promise.all([mobile.window(programView, null, shown), mobile.campaign(programView)]);
    const shareBase = win.share.preferredUrl ?? win.share.fallbackUrl;
    const participant = {
      id: 'preview',
      email: 'alex.rivera@example.com',
      firstName: 'Alex',
      lastName: 'Rivera',
      shareUrl: `${shareBase}${shareBase.includes('?') ? '&' : '?'}grsf=alex`,
      referralCount: 3,
      monthlyReferralCount: 2,
      prevMonthlyReferralCount: 1,
      rank: 4,
      monthlyRank: 3,
      prevMonthlyRank: 7,
      impressionCount: 42,
      uniqueImpressionCount: 31,
      inviteCount: 5,
      leadCount: 1,
      createdAt: this.deps.clock.now() - 20 * 86_400_000,
      referralSource: 'DIRECT',
      referralStatus: null,
      referredBy: null,
      shareCount: { email: 2, copyRefLink: 4 },
      metadata: {},
      unsubscribed: false,
      vanityKeys: [],
      payoutSettings: { requiredActions: [] },
      isAffiliate: programView.program.type === 'AFFILIATE',
      affiliateStatus: programView.program.type === 'AFFILIATE' ? 'APPROVED' : null,
      language: shown,
    };
    // The referred friend is a visitor (nobody signed in) who arrived through Alex's link.
    return { program: programView.program, language: shown, responses: { window: { ...win, participant: view === 'referrer' ? participant : null }, campaign } };
  }
}
