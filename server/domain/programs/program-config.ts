import { z } from 'zod';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { newId, type Sealer } from '../../crypto.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldError } from '../../../shared/errors.ts';
import { boundsOf } from '../../../shared/field-errors.ts';
import { READ_ONLY_FIELDS, TYPE_ONLY_FIELDS, documentSchema } from '../../../shared/schemas/program-config.ts';
import type { CampaignInstallation } from '../../../shared/schemas/program-config-installation.ts';
import type { DocumentKind } from '../../../shared/schemas/program-config-fields.ts';
import { defaultDocuments, type ProgramDocuments } from './program-config-defaults.ts';
import type { Program, Programs } from './programs.ts';
import { deepFreeze } from '../../../shared/freeze.ts';
import { localizedDesign } from './design-copy/index.ts';
import { localizedEmails } from './email-copy/index.ts';
import { brandDesign, brandEmails, emailBrandOf, DESIGN_FOLLOWERS, EMAIL_FOLLOWERS } from './brand.ts';

export { defaultDocuments, type ProgramDocuments } from './program-config-defaults.ts';
export { BUSINESS_GOALS } from './program-config-default-design.ts';

type Doc = Record<string, unknown>;

const READ_ONLY_MESSAGES: Record<string, string> = {
  'mobile.publicKey': 'mobile.publicKey is read-only: the server creates it when mobile.isEnabled turns on.',
  'settings.sender.fromEmail': 'settings.sender.fromEmail is read-only: it is the address this installation sends from (MAIL_FROM).',
  'followUpReminder.enabledAt': 'followUpReminder.enabledAt is read-only: it is set when the reminder is switched on.',
};

function isPlainObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep partial merge: objects merge recursively, arrays and scalars replace, `null` sets null, absent keeps. */
export function deepMerge<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return (patch === undefined ? base : patch) as T;
  const out: Doc = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k], v) : structuredClone(v);
  }
  return out as T;
}

/** Keeps only the keys the schema knows, at every depth (drops fields of older versions or the other type). */
function pickKnown(schema: z.ZodType, value: unknown): unknown {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  if (!(s instanceof z.ZodObject) || !isPlainObject(value)) return value;
  const out: Doc = {};
  for (const [k, child] of Object.entries(s.shape as Record<string, z.ZodType>)) {
    if (k in value) out[k] = pickKnown(child, value[k]);
  }
  return out;
}

function getPath(doc: unknown, path: string): unknown {
  let v: unknown = doc;
  for (const k of path.split('.')) {
    if (!isPlainObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

function setPath(doc: Doc, path: string, value: unknown): void {
  const keys = path.split('.');
  let v: Doc = doc;
  for (const k of keys.slice(0, -1)) {
    if (!isPlainObject(v[k])) return;
    v = v[k] as Doc;
  }
  if (value === undefined) delete v[keys.at(-1)!];
  else v[keys.at(-1)!] = value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Zod issues as per-field errors (the domain's copy of the HTTP layer's mapping, so layers stay apart). */
function issuesToErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((i) => {
    const at = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') {
      const keys = (i as { keys: string[] }).keys;
      return { field: keys.map((k) => (at ? `${at}.${k}` : k)).join(', '), code: 'UNKNOWN_FIELD', message: `Unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` };
    }
    const code = i.code === 'invalid_type' ? 'INVALID_TYPE' : i.code === 'invalid_value' ? 'INVALID_VALUE' : i.code === 'too_big' ? 'TOO_LONG' : i.code === 'too_small' ? 'TOO_SHORT' : 'INVALID';
    return { field: at || 'body', code, message: i.message, ...boundsOf(i) };
  });
}

function fail(errors: FieldError[]): never {
  throw new ValidationError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

/** A document as stored, completed with today's defaults for fields added since it was written. */
export function completeDocument<K extends DocumentKind>(kind: K, program: Pick<Program, 'type' | 'goal'>, stored: unknown): ProgramDocuments[K] {
  const defaults = defaultDocuments(program.type, (program.goal ?? null) as never)[kind];
  return pickKnown(documentSchema(kind, program.type), deepMerge(defaults, stored ?? {})) as ProgramDocuments[K];
}

/** Completed documents by the frozen stored document they came from, then by kind, type and goal. */
const completed = new WeakMap<object, Map<string, unknown>>();

/**
 * `completeDocument` for readers that only look: a stored document that is frozen (shared between
 * requests, `Programs.forRequest`) is completed once, and the same frozen result is returned for
 * as long as that document lives. Others are completed afresh, as before.
 */
export function completedDocument<K extends DocumentKind>(kind: K, program: Pick<Program, 'type' | 'goal'>, stored: unknown): Readonly<ProgramDocuments[K]> {
  if (!stored || typeof stored !== 'object' || !Object.isFrozen(stored)) return readableDocument(kind, program, stored);
  let byKey = completed.get(stored);
  if (!byKey) completed.set(stored, (byKey = new Map()));
  const key = `${kind}|${program.type}|${program.goal ?? ''}`;
  let doc = byKey.get(key) as ProgramDocuments[K] | undefined;
  if (!doc) byKey.set(key, (doc = deepFreeze(readableDocument(kind, program, stored))));
  return doc;
}

/**
 * A document as its readers use it: completed, and for the design with the fields that follow the
 * brand filled from it while they hold their stock default (issue #32, `brandDesign`). Never
 * stored: `#merge` works on `completeDocument`, so a later change of the brand still reaches them.
 */
function readableDocument<K extends DocumentKind>(kind: K, program: Pick<Program, 'type' | 'goal'>, stored: unknown): ProgramDocuments[K] {
  const doc = completeDocument(kind, program, stored);
  return (kind === 'design' ? brandDesign(doc as ProgramDocuments['design']) : doc) as ProgramDocuments[K];
}

/** The brand a program's emails follow (issue #32): its design's main colour and font, the landing page's logo, else the program's. */
export function programEmailBrand(program: Pick<Program, 'type' | 'goal' | 'documents' | 'companyLogoImageUrl'>) {
  return emailBrandOf(completedDocument('design', program, program.documents.design), program.companyLogoImageUrl);
}

/** Rules one field cannot express, checked on the merged document. */
function crossFieldErrors(kind: DocumentKind, type: Program['type'], doc: any): FieldError[] {
  const errors: FieldError[] = [];
  const add = (field: string, message: string, code = 'INVALID') => errors.push({ field, code, message });
  if (kind === 'design') {
    const fields = doc.signup.fields as Array<{ key: string; type: string; isRequired: boolean }>;
    const keys = fields.map((f) => f.key);
    if (new Set(keys).size !== keys.length) add('signup.fields', 'Each field key may appear once.');
    const email = fields.find((f) => f.key === 'email');
    if (!email || email.type !== 'EMAIL' || !email.isRequired) add('signup.fields', 'The form needs a required field with key "email" and type EMAIL.');
    if (doc.widget.icon === 'CUSTOM' && !doc.widget.iconImageUrl) add('widget.iconImageUrl', 'A CUSTOM icon needs iconImageUrl.', 'REQUIRED');
    for (const section of ['rewards', 'resources'] as const) {
      if (doc[section].icon.type === 'IMAGE' && !doc[section].icon.imageUrl) add(`${section}.icon.imageUrl`, 'An IMAGE icon needs imageUrl.', 'REQUIRED');
    }
  }
  if (kind === 'options') {
    if (type === 'AFFILIATE' && doc.requireParticipantAuth !== true) add('requireParticipantAuth', 'Affiliate programs always require participant authentication.');
    const extra = doc.languages.additionalLanguages as string[];
    if (new Set(extra).size !== extra.length) add('languages.additionalLanguages', 'Each language may appear once.');
    if (extra.includes(doc.languages.baseLanguage)) add('languages.additionalLanguages', 'The base language cannot also be an additional language.');
    if (doc.fraud.maxSignupsPerIp10Min < doc.fraud.maxSignupsPerIp2Min) add('fraud.maxSignupsPerIp10Min', 'Cannot be lower than maxSignupsPerIp2Min.');
    const providers = doc.payoutSettings.enabledProviders as string[];
    if (new Set(providers).size !== providers.length) add('payoutSettings.enabledProviders', 'Each provider may appear once.');
    if (type !== 'AFFILIATE' && providers.includes('WISECOM')) add('payoutSettings.enabledProviders', 'WISECOM (Wise) is only available for affiliate programs.', 'NOT_AVAILABLE_FOR_PROGRAM_TYPE');
    const questions = (doc.affiliateApplicationForm?.questions ?? []) as Array<{ fieldId: string; type: string; options?: string[] }>;
    if (new Set(questions.map((q) => q.fieldId)).size !== questions.length) add('affiliateApplicationForm.questions', 'Each fieldId may appear once.');
    questions.forEach((q, i) => {
      const choices = q.type === 'dropdown' || q.type === 'radio';
      if (choices && !q.options?.length) add(`affiliateApplicationForm.questions.${i}.options`, 'A dropdown or radio question needs options.', 'REQUIRED');
      if (!choices && q.options !== undefined) add(`affiliateApplicationForm.questions.${i}.options`, 'Only dropdown and radio questions have options.');
    });
  }
  if (kind === 'installation') {
    if (doc.signup.redirectAfterSignup && !doc.signup.redirectUrl) add('signup.redirectUrl', 'Required when redirectAfterSignup is true.', 'REQUIRED');
  }
  return errors;
}

/** A new publishable Mobile SDK key: random and unguessable, yet not a secret (it ships inside apps). */
export function newPublicKey(): string {
  return `pk_${newId(32)}`;
}

/** The program's Mobile SDK key when the mobile SDK is on, else null (what the mobile API checks). */
export function mobilePublicKey(program: Program): string | null {
  const mobile = completeDocument('installation', program, program.documents.installation).mobile;
  return mobile.isEnabled ? mobile.publicKey : null;
}

/**
 * Host names whose pages may run the window and SDK, or null when any site may: `allowedDomains`
 * plus the hosts of `allowedUrls`, and, once either list is set, the share and signup URL hosts.
 */
export function embedHosts(installation: CampaignInstallation): string[] | null {
  const hosts = new Set<string>(installation.allowedDomains);
  for (const u of installation.allowedUrls) hosts.add(new URL(u).hostname.toLowerCase());
  if (hosts.size === 0) return null;
  for (const u of [installation.shareUrl, installation.signup.url]) if (u) hosts.add(new URL(u).hostname.toLowerCase());
  return [...hosts];
}

/** The four Program Editor documents (CF1–CF8). */
export class ProgramConfig {
  readonly #fromEmail: string;
  /** Called with the program's id after one of its documents changed and the change committed. */
  readonly changed: Array<(programId: string) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly sealer: Sealer,
  ) {
    this.#fromEmail = /<([^>]+)>/.exec(config.mailFrom)?.[1] ?? config.mailFrom;
  }

  /**
   * GET: the complete document as the wire shows it (defaults filled, write-only values removed);
   * the design's and the emails' unedited default texts in the program's base language (`#inBase`),
   * or in `language` (one of the program's languages, checked by the caller).
   */
  read<K extends DocumentKind>(program: Program, kind: K, language?: string): ProgramDocuments[K] {
    if (kind === 'emails') return this.#inBase(program, kind, brandEmails(completedDocument('emails', program, program.documents.emails), programEmailBrand(program)), language) as ProgramDocuments[K];
    if (kind === 'design') return this.#inBase(program, kind, completedDocument(kind, program, program.documents[kind]), language) as ProgramDocuments[K];
    return this.#view(kind, completeDocument(kind, program, program.documents[kind]));
  }

  /** The reCAPTCHA secret for the fraud checks, or null. */
  recaptchaSecret(program: Program): string | null {
    const sealed = (completeDocument('options', program, program.documents.options).fraud.recaptcha as { secretKey?: string | null }).secretKey;
    return sealed ? this.sealer.open(sealed) : null;
  }

  /** PATCH: deep-merges `patch`, validates the whole result for the program's type, stores it in one UPDATE. */
  async update<K extends DocumentKind>(program: Program, kind: K, patch: Doc): Promise<ProgramDocuments[K]> {
    if (Object.keys(patch).length === 0) fail([{ field: 'body', code: 'REQUIRED', message: 'Send at least one field to change.' }]);
    this.#checkTypeFields(program, kind, patch);

    const updated = await this.db.knex.transaction(async (trx) => {
      // FOR NO KEY UPDATE: documents are not keys, and sign-ups' foreign-key share locks on the row need not wait for this (issue #20).
      const row = await trx('programs').where({ id: program.id }).forNoKeyUpdate().first(kind);
      if (!row) throw new NotFoundError(`No program ${program.id}.`);
      const now = this.clock.now();
      const next = this.#merge(program, kind, JSON.parse(row[kind]), patch, now);
      await trx('programs')
        .where({ id: program.id })
        .update({ [kind]: JSON.stringify(next), updated_at: now });
      // Answered as GET answers it: the brand's followers derived (issue #32), the stored document as it is.
      if (kind === 'design') return this.#inBase(program, kind, brandDesign(next)) as ProgramDocuments[K];
      if (kind === 'emails') return this.#inBase(program, kind, brandEmails(next, programEmailBrand(program))) as ProgramDocuments[K];
      return this.#view(kind, structuredClone(next)) as ProgramDocuments[K];
    });
    for (const hook of this.changed) hook(program.id);
    return updated;
  }

  /**
   * The document `update` would store for `patch` over the program as loaded, refused by the same
   * rules with the same field errors, and nothing written: what previews of unsaved changes render
   * (EP1/EP2). It is the stored form (`emails.settings.sender.fromEmail` empty, an options secret
   * sealed), for the server's own use, never a response as it is.
   */
  draft<K extends DocumentKind>(program: Program, kind: K, patch: Doc): ProgramDocuments[K] {
    this.#checkTypeFields(program, kind, patch);
    return this.#merge(program, kind, structuredClone(program.documents[kind] ?? {}), patch, this.clock.now()) as ProgramDocuments[K];
  }

  /** Refuses fields of the other program type before anything is read. */
  #checkTypeFields(program: Program, kind: DocumentKind, patch: Doc): void {
    const errors: FieldError[] = [];
    for (const [path, only] of Object.entries(TYPE_ONLY_FIELDS[kind])) {
      if (only !== program.type && getPath(patch, path) !== undefined) {
        errors.push({ field: path, code: 'NOT_AVAILABLE_FOR_PROGRAM_TYPE', message: `${path} is only available for ${only.toLowerCase()} programs.` });
      }
    }
    if (errors.length) fail(errors);
  }

  /** `patch` merged over the stored document `raw`: read-only fields, the sealed secret, the whole schema and the cross-field rules. */
  #merge(program: Program, kind: DocumentKind, raw: unknown, patch: Doc, now: number): any {
    const errors: FieldError[] = [];
    const stored = completeDocument(kind, program, raw) as Doc;
    const view = this.#view(kind, structuredClone(stored) as never) as Doc;
    const body = structuredClone(patch);
    for (const path of READ_ONLY_FIELDS[kind]) {
      const sent = getPath(body, path);
      if (sent === undefined) continue;
      // A field the view omits while unset (installation mobile.publicKey) reads as null here.
      if (!sameValue(sent, getPath(view, path) ?? null)) {
        errors.push({ field: path, code: 'READ_ONLY', message: READ_ONLY_MESSAGES[path] ?? `${path} is read-only: transactional emails are always sent.` });
      }
      setPath(body, path, undefined);
    }
    if (kind === 'design' && getPath(body, 'widget.icon') === 'DEFAULT' && getPath(view, 'widget.icon') !== 'DEFAULT') {
      errors.push({ field: 'widget.icon', code: 'INVALID_VALUE', message: 'DEFAULT cannot be set; choose CUSTOM or NONE.' });
    }
    if (errors.length) fail(errors);
    this.#dropFollowedBrand(program, kind, stored, body);

    // The reCAPTCHA secret never takes part in the merge: it is sealed, and absent from what clients see.
    let secret = kind === 'options' ? ((getPath(stored, 'fraud.recaptcha.secretKey') as string | null | undefined) ?? null) : null;
    const sentSecret = kind === 'options' ? getPath(body, 'fraud.recaptcha.secretKey') : undefined;
    if (sentSecret !== undefined) {
      secret = sentSecret === null || sentSecret === '' ? null : this.sealer.seal(String(sentSecret));
      setPath(body, 'fraud.recaptcha.secretKey', undefined);
    }
    if (kind === 'options') setPath(stored, 'fraud.recaptcha.secretKey', undefined);

    const merged = deepMerge(stored, body) as any;
    if (kind === 'installation' && merged.mobile.isEnabled && !merged.mobile.publicKey) merged.mobile.publicKey = newPublicKey();
    if (kind === 'options') {
      const was = (stored as any).followUpReminder.isEnabled;
      if (!merged.followUpReminder.isEnabled) merged.followUpReminder.enabledAt = null;
      else if (!was) merged.followUpReminder.enabledAt = now;
    }

    const parsed = documentSchema(kind, program.type).safeParse(merged);
    if (!parsed.success) fail(issuesToErrors(parsed.error));
    const next = parsed.data as any;
    const more = crossFieldErrors(kind, program.type, next);
    if (kind === 'options' && next.fraud.recaptcha.isEnabled && (!next.fraud.recaptcha.siteKey || !secret)) {
      more.push({ field: 'fraud.recaptcha', code: 'REQUIRED', message: 'reCAPTCHA needs a siteKey and a secretKey before it can be enabled.' });
    }
    if (more.length) fail(more);
    if (kind === 'emails') next.settings.sender.fromEmail = '';
    if (kind === 'options' && secret) next.fraud.recaptcha.secretKey = secret;
    return next;
  }

  /**
   * A field that follows the brand (issue #32) and still holds its stock value reads as the brand's
   * value; sent back unchanged with that value (a client that PATCHes what it read), it is not an
   * owner's choice and is dropped from `body`, so the field keeps following the brand.
   */
  #dropFollowedBrand(program: Program, kind: DocumentKind, stored: Doc, body: Doc): void {
    if (kind !== 'design' && kind !== 'emails') return;
    const shown = kind === 'design' ? (brandDesign(stored as never) as unknown as Doc) : (brandEmails(stored as never, programEmailBrand(program)) as unknown as Doc);
    for (const path of kind === 'design' ? DESIGN_FOLLOWERS : EMAIL_FOLLOWERS) {
      const sent = getPath(body, path);
      if (sent === undefined) continue;
      const was = getPath(stored, path);
      const derived = getPath(shown, path);
      if (!sameValue(was, derived) && sameValue(sent, derived)) setPath(body, path, undefined);
    }
  }

  /**
   * A complete design or emails document as an owner is shown it (issue #27): every text that is
   * still a default (the default at its place in any program language) in the program's base
   * language, exactly what a reader of that language gets; the owner's texts as written. Nothing
   * stored changes, and a default sent back in a PATCH is still recognised as one. `doc` is not
   * changed; a frozen (shared) one is localized once per base language (`localizedDesign`,
   * `localizedEmails`).
   */
  #inBase(program: Program, kind: 'design' | 'emails', doc: unknown, language?: string): unknown {
    const base = language ?? (program.documents.options as { languages?: { baseLanguage?: string } } | null)?.languages?.baseLanguage ?? 'en';
    if (kind === 'design') return localizedDesign(program.type, program.goal, doc, base);
    const emails = localizedEmails(program.type, doc as ProgramDocuments['emails'], base);
    // #view's sender address, on a copy of the spine (the localized document may be shared).
    return { ...emails, settings: { ...emails.settings, sender: { ...emails.settings.sender, fromEmail: this.#fromEmail } } };
  }

  #view<K extends DocumentKind>(kind: K, doc: ProgramDocuments[K]): ProgramDocuments[K] {
    const d = doc as any;
    if (kind === 'options' && d.fraud?.recaptcha) delete d.fraud.recaptcha.secretKey;
    if (kind === 'emails' && d.settings?.sender) d.settings.sender.fromEmail = this.#fromEmail;
    // rest-v2 §2.21 types these as plain strings: unset ones are omitted, never null.
    if (kind === 'installation') {
      if (d.shareUrl == null) delete d.shareUrl;
      if (d.mobile && d.mobile.publicKey == null) delete d.mobile.publicKey;
    }
    return doc;
  }
}

/** Lifecycle work for the documents: a clone gets its own Mobile SDK key, never its source's. */
export function registerConfigHooks(programs: Programs): void {
  programs.hooks.cloned.push(async (trx: Knex.Transaction, _source: Program, copy: Program) => {
    const installation = copy.documents.installation as Doc;
    const mobile = installation?.mobile as Doc | undefined;
    if (!mobile?.publicKey) return;
    const next = { ...installation, mobile: { ...mobile, publicKey: newPublicKey() } };
    await trx('programs').where({ id: copy.id }).update({ installation: JSON.stringify(next) });
    copy.documents.installation = next as ProgramDocuments['installation'];
  });
}
