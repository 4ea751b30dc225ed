// Form capture (installation.signupEvent FORM_DETECTION, issue #24): `chunks/form-<hash>.js`, an ES
// module with no imports that the launcher loads only when the window payload carries `formCapture`,
// so pages of other programs never fetch it. When the site's own sign-up form is submitted, it reads
// the email (and first and last name) from the configured selectors or by detection and adds the
// participant the way `growsurf.addParticipant` does: the pending referral code, the visit receipts
// and this browser's instance id go with it, so the referrer is credited.
// The site's submit is never blocked, delayed or prevented: one capture-phase listener on document
// (forms added later included) reads the fields synchronously and sends with `fetch` keepalive,
// which outlives the page's navigation. Password fields are never read. Forms in a shadow root (our
// own sign-up forms among them) never reach the listener: `submit` does not cross shadow roots.
import type { PendingAttribution, StoredReceipts, WidgetRuntime } from '../runtime.ts';
import { PARTICIPANT_TOKEN, PENDING, RECEIPTS } from './common.ts';

/** The window payload's `formCapture` (installation.signup.formFields): CSS selectors, null = detect. */
export interface FormFields {
  form?: string | null;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

/** What a submitted form yields for the participant. */
export interface Picked {
  email: string;
  firstName?: string;
  lastName?: string;
}

type Field = HTMLInputElement;

/** A field whose value is never read: a password by its type or its autocomplete token (new-password, current-password, one-time-code is not one). */
export const isSecret = (el: Element): boolean => (el as Field).type == 'password' || /password/i.test(el.getAttribute('autocomplete') || '');

/** A plausible email address (the server checks it again). */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The sign-up fields of `form`: each configured selector (inside the form) wins; otherwise detection
 * by type, autocomplete, then name or id. Null when the form is not the configured one (without
 * one: when it is a sign-in form, asking for the current password) or carries no valid email. Only text-like inputs are read, never a password, hidden field or checkbox.
 */
export function pick(form: HTMLFormElement, f: FormFields = {}): Picked | null {
  // Detected, a form asking for the current password is a sign-in form, not a sign-up.
  if (f.form ? !form.matches(f.form) : form.querySelector('[autocomplete~=current-password]')) return null;
  const inputs = [...form.querySelectorAll<Field>('input')].filter((i) => /^(email|text|)$/.test(i.type) && !isSecret(i));
  const value = (sel: string | null | undefined, test: (i: Field, key: string) => boolean): string | undefined => {
    // A configured selector names the field; a password stays unread even then.
    const el = sel ? form.querySelector<Field>(sel) : inputs.find((i) => test(i, `${i.name} ${i.id}`));
    return (el && !isSecret(el) && el.value?.trim()) || undefined;
  };
  const auto = (i: Field) => (i.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
  const email = value(f.email, (i, k) => i.type == 'email' || auto(i).includes('email') || /e-?mail/i.test(k));
  if (!email || !EMAIL.test(email)) return null;
  const out: Picked = { email };
  let first = value(f.firstName, (i, k) => auto(i).includes('given-name') || /first.?name|fname|given/i.test(k));
  let last = value(f.lastName, (i, k) => auto(i).includes('family-name') || /last.?name|lname|surname|family/i.test(k));
  if (!first && !last && !f.firstName && !f.lastName) {
    // One "name" field: its first word is the first name, the rest the last name.
    const full = value(null, (i, k) => auto(i).includes('name') || /^(full.?)?name$/i.test(i.name || i.id));
    if (full) [first, last] = [full.split(/\s+/)[0], full.split(/\s+/).slice(1).join(' ') || undefined];
  }
  if (first) out.firstName = first.slice(0, 255);
  if (last) out.lastName = last.slice(0, 255);
  return out;
}

/** What a send needs, read ahead of the submit (IndexedDB is asynchronous; a navigation does not wait). */
interface Ready {
  session?: string;
  code?: string;
  receipts: string[];
}

/**
 * Starts form capture on this page. `fields` are the window payload's `formCapture`. The listener
 * stays for the life of the page; it never throws into the host page.
 */
export async function watch(rt: WidgetRuntime, fields: FormFields): Promise<void> {
  const ready: Ready = { receipts: [] };
  const post = (path: string, body: object) => {
    const init: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-token': ready.session! }, body: JSON.stringify(body) };
    // keepalive lets the request outlive the page the form leaves; an engine that refuses it gets a plain request.
    return fetch(rt.apiBase + path, { ...init, keepalive: true }).catch(() => fetch(rt.apiBase + path, init));
  };
  // The session (shared with the launcher and the window through the store), the pending referral and the receipts.
  const refresh = async () => {
    try {
      let s = await rt.store.get<{ token: string; expiresAt: number }>('sessionToken');
      if (!s || s.expiresAt - 120_000 < Date.now()) {
        const h: Record<string, string> = { 'x-program-id': rt.programId, 'content-type': 'application/json' };
        if (rt.publicKey) h['x-public-key'] = rt.publicKey;
        const r = await fetch(rt.apiBase + '/sessions', { method: 'POST', headers: h, body: JSON.stringify({ instanceId: rt.instanceId }) });
        const b = await r.json();
        if (r.ok) await rt.store.set('sessionToken', (s = { token: b.sessionToken, expiresAt: b.expiresAt }));
      }
      const receipts = (await rt.store.get<StoredReceipts>(RECEIPTS)) || {};
      ready.session = s?.token;
      ready.code = (await rt.store.get<PendingAttribution>(PENDING))?.referralCode;
      ready.receipts = [...new Set([receipts.firstVisit, receipts.lastVisit].filter((r): r is string => !!r))];
    } catch {
      /* the API or the store failed: a submit sends nothing */
    }
  };
  const send = async (p: Picked) => {
    const body = { ...p, mobileInstanceId: rt.instanceId, ...(ready.receipts.length ? { receipts: ready.receipts } : {}) };
    let r: Response | undefined;
    let answer: { added?: boolean; notAddedReason?: string; participantToken?: string } = {};
    // As addParticipant: the referred path first with a pending code, a plain sign-up when the code names nobody.
    if (ready.code) answer = await (r = await post('/referred-participants', { ...body, referredBy: ready.code })).json();
    if (!r || (r.ok && !answer.added && answer.notAddedReason != 'participant_already_exists')) answer = await (r = await post('/participants', body)).json();
    // Signed in, as after addParticipant (if the page is still there to hear the answer).
    if (r.ok && answer.participantToken) await rt.store.set(PARTICIPANT_TOKEN, answer.participantToken);
    rt.emit('grsfFormCapture', { email: p.email, added: r.ok && answer.added !== false });
  };
  await refresh();
  // Typing into a form reads the store again: a referral or receipt that arrived since is sent.
  document.addEventListener('focusin', (e) => (e.target as Element).closest?.('form') && void refresh(), true);
  document.addEventListener(
    'submit',
    (e) => {
      try {
        const form = e.target as HTMLFormElement;
        const p = form.getRootNode() == document && ready.session && pick(form, fields);
        if (p) send(p).catch(() => {});
      } catch {
        /* a bad selector or an odd form: the site's submit goes on */
      }
    },
    true,
  );
}
