import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { addParticipant, liveWithHostedPages, newProgram } from '../../helpers/programs.ts';

// Issue #27: the hosted participant pages speak the reader's language: a participant the link
// names reads their own `language`, else the program's base language; a visitor nobody knows (the
// hosted landing page, the portal's shell, a broken link) reads the best match of the browser's
// Accept-Language among the program's languages, else the base language. `<html lang>` says which.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

/** A verified team's live program with `base` and `additional` languages and hosted pages on. */
async function program(base: string, additional: string[]) {
  const p = await newProgram(app, { body: { name: 'Bean Club', companyName: 'Acme Coffee' }, docs: { options: { languages: { baseLanguage: base, additionalLanguages: additional } } } });
  await liveWithHostedPages(app, p.key, p.pid);
  return { key: p.key, pid: p.pid };
}

/** The unsubscribe link of the welcome email a new participant got. */
async function unsubscribeLinkOf(key: string, pid: string, body: Record<string, unknown>): Promise<string> {
  await addParticipant(app, key, pid, body);
  const [mail] = (await app.deps.mailer.list({ to: body.email as string })).filter((m) => m.kind === 'program.welcomeNonReferred');
  return app.local(/href="(http:\/\/refloop\.test\/unsubscribe\?token=[^"]+)"/.exec(mail!.html ?? '')![1]!.replace(/&amp;/g, '&'));
}

const page = async (url: string, acceptLanguage?: string, init: RequestInit = {}) => {
  const res = await fetch(url.startsWith('http') ? url : app.url + url, { redirect: 'manual', ...init, headers: { ...(acceptLanguage ? { 'Accept-Language': acceptLanguage } : {}), ...(init.headers ?? {}) } });
  return { status: res.status, html: await res.text(), vary: res.headers.get('vary') };
};
const langOf = (html: string) => /<html lang="([^"]+)"/.exec(html)?.[1];

describe('hosted participant pages in the reader’s language (issue #27)', () => {
  it('unsubscribe speaks the participant’s own language, whatever the browser says, before and after the click', async () => {
    const p = await program('en', ['de', 'ja']);
    const link = await unsubscribeLinkOf(p.key, p.pid, { email: 'yui@example.com', language: 'ja' });
    const shown = await page(link, 'de-DE,de;q=0.9');
    expect(shown.status).toBe(200);
    expect(langOf(shown.html)).toBe('ja');
    expect(shown.html).toContain('Acme Coffee からのメール配信を停止しますか？');
    expect(shown.html).toContain('<button type="submit">配信を停止する</button>');
    expect(shown.html).not.toMatch(/Unsubscribe from|Abmelden/);
    const done = await page(link, 'de', { method: 'POST', headers: { Origin: app.url, 'Sec-Fetch-Site': 'same-origin' } });
    expect(done.status).toBe(200);
    expect(langOf(done.html)).toBe('ja');
    expect(done.html).toContain('配信を停止しました');
  });

  it('unsubscribe speaks the program’s base language to a participant without one', async () => {
    const p = await program('de', ['en', 'ja']);
    const link = await unsubscribeLinkOf(p.key, p.pid, { email: 'max@example.com' });
    const shown = await page(link, 'ja');
    expect(langOf(shown.html)).toBe('de');
    expect(shown.html).toContain('Von E-Mails von Acme Coffee abmelden?');
    expect(shown.html).toContain('<title>Abmelden · refloop</title>');
  });

  it('the hosted landing page and portal shell follow the browser among the program’s languages, else the base', async () => {
    const p = await program('en', ['de', 'ja', 'pl']);
    const ja = await page(`/p/${p.pid}`, 'ja-JP,ja;q=0.9,en;q=0.5');
    expect(ja.status).toBe(200);
    expect(langOf(ja.html)).toBe('ja');
    expect(ja.html).toContain('すでに参加済みの方は <a href="/p/');
    expect(ja.html).toContain('ポータルにログイン');
    expect(ja.html).not.toContain('Already a participant?');
    expect(ja.vary).toContain('Accept-Language');

    const pl = await page(`/p/${p.pid}/portal`, 'pl');
    expect(langOf(pl.html)).toBe('pl');
    expect(pl.html).toContain('<h1>Portal poleceń</h1>');
    expect(pl.html).toContain('Jeszcze nie uczestniczysz?');

    // French is not one of the program's languages: the base language, English.
    const fr = await page(`/p/${p.pid}`, 'fr-FR,fr;q=0.9');
    expect(langOf(fr.html)).toBe('en');
    expect(fr.html).toContain('Already a participant?');

    // The share link serves the same page when the program has no site.
    const share = await page(`/r/${p.pid}`, 'de-AT');
    expect(share.status).toBe(200);
    expect(langOf(share.html)).toBe('de');
    expect(share.html).toContain('Schon dabei?');
  });

  it('a broken link nobody can be known from answers in the browser’s language, English when it has none of ours', async () => {
    const ko = await page('/unsubscribe?token=nope', 'ko-KR,ko;q=0.9');
    expect(ko.status).toBe(400);
    expect(langOf(ko.html)).toBe('ko');
    expect(ko.html).toContain('이 수신 거부 링크는 유효하지 않습니다');
    const xx = await page('/unsubscribe?token=nope', 'xx');
    expect(langOf(xx.html)).toBe('en');
    expect(xx.html).toContain('This unsubscribe link is not valid');
    const missing = await page('/p/nosuchprogram', 'es');
    expect(missing.status).toBe(404);
    expect(langOf(missing.html)).toBe('es');
    expect(missing.html).toContain('Esta página no existe');
  });
});
