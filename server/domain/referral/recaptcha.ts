import http from 'node:http';
import https from 'node:https';
import type { Logger } from '../../log.ts';

// options.fraud.recaptcha for sign-ups from web pages: the widget gets a token from Google's
// reCAPTCHA (v3, or an invisible v2 on the owner's page) and sends it as `recaptchaToken`; the
// server asks the verification service (RECAPTCHA_VERIFY_URL, Google's siteverify by default; the
// recaptcha.net mirror works the same) before anything is written.

/** Lowest v3 score taken as a person (Google's suggested default); v2 answers carry no score. */
export const MIN_SCORE = 0.5;
/** The action the widget names when it asks for a token; a token made for another action is refused. */
export const SIGNUP_ACTION = 'signup';
const TIMEOUT_MS = 5000;

/** POSTs a form over node:http(s) (not the global fetch, which a test environment may replace); the reply is capped at 64 KiB. */
function postForm(url: string, body: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      { method: 'POST', signal, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > 65_536) res.destroy(new Error('the verification service answered more than 64 KiB'));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => reject(new Error(signal.aborted ? 'the verification service did not answer in time' : 'the verification service could not be reached', { cause: err })));
    req.end(body);
  });
}

/** `passed`; `failed` (missing, invalid, expired, reused, low score or another action); `unavailable` (the service did not answer). */
export type RecaptchaOutcome = { result: 'passed' } | { result: 'failed'; why: string } | { result: 'unavailable'; why: string };

interface SiteverifyAnswer {
  success?: unknown;
  score?: unknown;
  action?: unknown;
  'error-codes'?: unknown;
}

/** Checks reCAPTCHA tokens with the verification service. */
export class Recaptcha {
  constructor(
    private readonly verifyUrl: string,
    private readonly log: Logger,
  ) {}

  async verify(secret: string, token: string | undefined, remoteIp: string): Promise<RecaptchaOutcome> {
    if (!token) return { result: 'failed', why: 'no reCAPTCHA token was sent' };
    let answer: SiteverifyAnswer;
    try {
      const res = await postForm(this.verifyUrl, new URLSearchParams({ secret, response: token, remoteip: remoteIp }).toString());
      if (res.status !== 200) return this.#unavailable(`the verification service answered ${res.status}`);
      answer = JSON.parse(res.body) as SiteverifyAnswer;
      if (!answer || typeof answer !== 'object') return this.#unavailable('the verification service answered something other than a JSON object');
    } catch (err) {
      return this.#unavailable(err instanceof SyntaxError ? 'the verification service answered something other than JSON' : (err as Error).message);
    }
    const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].filter((c): c is string => typeof c === 'string') : [];
    // A wrong or missing secret is the owner's configuration, not the visitor: the check could not run.
    if (codes.some((c) => c === 'invalid-input-secret' || c === 'missing-input-secret')) return this.#unavailable('the program’s reCAPTCHA secret key was refused');
    if (answer.success !== true) return { result: 'failed', why: codes.length ? `reCAPTCHA refused the token (${codes.slice(0, 3).join(', ')})` : 'reCAPTCHA refused the token' };
    if (typeof answer.action === 'string' && answer.action !== SIGNUP_ACTION) return { result: 'failed', why: `the token was made for another action (${answer.action.slice(0, 40)})` };
    if (typeof answer.score === 'number' && answer.score < MIN_SCORE) return { result: 'failed', why: `the reCAPTCHA score ${answer.score} is below ${MIN_SCORE}` };
    return { result: 'passed' };
  }

  #unavailable(why: string): RecaptchaOutcome {
    this.log.warn('reCAPTCHA verification unavailable', { why });
    return { result: 'unavailable', why };
  }
}
