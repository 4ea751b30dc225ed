// The automatic emails of participant events: the welcome and the referrer's "someone signed up"
// at creation, `goalAchieved` per issued reward, and `referralLinkUsed` when a referral is credited.
import type { Knex } from 'knex';
import { historyWrites, type ParticipantRow } from '../participants/model.ts';
import type { Program } from '../programs/programs.ts';
import type { ConfigRow } from '../programs/reward-configs.ts';
import { displayName, escapeHtml, type EmailVars } from './email-layout.ts';
import type { ProgramEmails, SendOutcome } from './program-emails.ts';

/** The label of the coupon code line the `goalAchieved` layout adds when the template shows no `{{couponCode}}`. */
const COUPON_LABEL: Record<string, string> = {
  en: 'Your code',
  es: 'Tu código',
  fr: 'Votre code',
  de: 'Ihr Code',
  it: 'Il tuo codice',
  'pt-BR': 'Seu código',
  nl: 'Je code',
  pl: 'Twój kod',
  sv: 'Din kod',
  tr: 'Kodunuz',
  ja: 'あなたのコード',
  ko: '코드',
  'zh-CN': '您的代码',
  id: 'Kode Anda',
};

/** The emails `ProgramEmails` sends on its own, registered on `participants.hooks` by it. */
export class ParticipantEventEmails {
  /** Referrers a transaction already told about a reward (`goalAchieved`): their `referralLinkUsed` would repeat it. */
  readonly #rewardTold = new WeakMap<Knex.Transaction, Set<string>>();

  constructor(private readonly emails: ProgramEmails) {}

  /** Welcome the new participant; tell their referrer (the row the sign-up holds) someone signed up (unless credited at once). */
  async onCreated(trx: Knex.Transaction, program: Program, p: ParticipantRow, referrer: ParticipantRow | null): Promise<void> {
    if (historyWrites.has(trx)) return;
    if (program.type === 'AFFILIATE') {
      // A referred customer of an affiliate program is not an affiliate: no affiliate welcome for them.
      if (p.is_affiliate) await this.emails.sendProgramEmail(trx, program, p, 'welcomeNonReferred');
    } else if (referrer) {
      await this.emails.sendProgramEmail(trx, program, p, 'welcomeReferred', { referrerFirstName: displayName(referrer) });
    } else {
      await this.emails.sendProgramEmail(trx, program, p, 'welcomeNonReferred');
    }
    // Credited at sign-up (ON_SIGNUP): referralLinkUsed says the same and more, so send only that.
    if (referrer && (program.type === 'AFFILIATE' || p.referral_status !== 'CREDIT_AWARDED')) {
      await this.emails.sendProgramEmail(trx, program, referrer, 'referredSignup', { referredFirstName: displayName(p) });
    }
  }

  /**
   * The `goalAchieved` email of one newly issued reward. `{{rewardDescription}}` and
   * `{{couponCode}}` are the recipient's side of the reward: the referred friend of a double-sided
   * reward gets `referralDescription` and `referralCouponCode`, everyone else `description` (else the
   * title) and `couponCode`. A coupon code always reaches its recipient: when the template does not
   * place `{{couponCode}}` itself, a line with the code (labelled in the participant's language)
   * follows the body.
   */
  async rewardEarned(
    trx: Knex.Transaction,
    program: Program,
    recipient: ParticipantRow,
    config: Pick<ConfigRow, 'type' | 'title' | 'description' | 'referral_description' | 'coupon_code' | 'referral_coupon_code'>,
    isReferrer: boolean,
    referrer?: ParticipantRow,
  ): Promise<SendOutcome> {
    const friendSide = config.type === 'DOUBLE_SIDED' && !isReferrer;
    const description = (friendSide ? config.referral_description : null) ?? config.description ?? config.title ?? '';
    const couponCode = (friendSide ? config.referral_coupon_code : config.coupon_code) ?? null;
    const label = COUPON_LABEL[this.emails.languageOf(program, recipient)] ?? COUPON_LABEL.en!;
    const amendBody = (body: string) => (couponCode && !/\{\{\s*couponCode\s*(\||\}\})/.test(body) ? `${body}\n<p>${escapeHtml(label)}: <strong>{{couponCode}}</strong></p>` : body);
    const vars: EmailVars = { rewardDescription: description, couponCode, ...(referrer ? { referrerFirstName: displayName(referrer) } : {}) };
    const outcome = await this.emails.sendProgramEmail(trx, program, recipient, 'goalAchieved', vars, { amendBody });
    // Sent, or skipped for the person (unsubscribed, team not verified): either way the reward email
    // speaks for this moment. Only a switched-off template leaves `referralLinkUsed` to say it.
    if (isReferrer && (outcome.sent || (outcome.reason !== 'TEMPLATE_DISABLED' && outcome.reason !== 'TEMPLATE_NOT_AVAILABLE'))) {
      let told = this.#rewardTold.get(trx);
      if (!told) this.#rewardTold.set(trx, (told = new Set()));
      told.add(recipient.id);
    }
    return outcome;
  }

  /**
   * The referrer earned credit (referral programs: `referralLinkUsed`), unless the same credit
   * already earned them a reward: one completed referral is one email, and "You earned a reward!"
   * says more than "Your referral counts" (issue #21). The rewards engine's `referralCredited` hook
   * is registered before this one (server/deps.ts builds Rewards first), so its `goalAchieved` is
   * already sent when this runs.
   */
  async onCredited(trx: Knex.Transaction, program: Program, referrer: ParticipantRow, referred: ParticipantRow): Promise<void> {
    if (program.type !== 'REFERRAL') return;
    // Consumed here: a group commit runs several triggers on one transaction, and the referrer's next credit in it may earn nothing.
    if (this.#rewardTold.get(trx)?.delete(referrer.id)) return;
    await this.emails.sendProgramEmail(trx, program, referrer, 'referralLinkUsed', { referredFirstName: displayName(referred), referralCount: Number(referrer.referral_count) });
  }
}
