import crypto from 'node:crypto';
import * as OTPAuth from 'otpauth';
import qrcode from 'qrcode-generator';

// RFC 6238 time-based one-time passwords (issue #35) through `otpauth`: HMAC-SHA1, 6 digits,
// 30-second steps, the step before and after accepted for clock drift, and a step used once never
// accepted again. The enrolment's QR code is drawn here as SVG (`qrcode-generator`), so the console
// carries no encoder.

/** Seconds per step (RFC 6238 X). */
export const TOTP_STEP_SECONDS = 30;
/** Digits of a code. */
export const TOTP_DIGITS = 6;

/** RFC 4648 base32 without padding, the alphabet authenticator apps read. */
export function base32Encode(bytes: Buffer): string {
  return new OTPAuth.Secret({ buffer: new Uint8Array(bytes).buffer }).base32;
}

/** Decodes base32 (case, spaces and padding ignored); null for any other character. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  if (!/^[A-Z2-7]*$/.test(clean)) return null;
  try {
    return Buffer.from(OTPAuth.Secret.fromBase32(clean).bytes);
  } catch {
    return null;
  }
}

/** A new shared secret: 20 random bytes (160 bits, RFC 4226's recommended length), base32. */
export function newTotpSecret(): string {
  return base32Encode(crypto.randomBytes(20));
}

/** The step number of a time in epoch milliseconds. */
export function totpStep(ms: number): number {
  return Math.floor(ms / 1000 / TOTP_STEP_SECONDS);
}

function totp(secretBase32: string, label = 'refloop', issuer = 'refloop'): OTPAuth.TOTP | null {
  const secret = base32Decode(secretBase32);
  if (!secret || secret.length === 0) return null;
  return new OTPAuth.TOTP({ issuer, label, algorithm: 'SHA1', digits: TOTP_DIGITS, period: TOTP_STEP_SECONDS, secret: new OTPAuth.Secret({ buffer: new Uint8Array(secret).buffer }) });
}

/** The code an authenticator shows at `ms` for a base32 secret. */
export function totpCode(secretBase32: string, ms: number): string {
  return totp(secretBase32)?.generate({ timestamp: ms }) ?? '';
}

/**
 * The step a code matches at `ms` (the current one, or one step either side), or null. A step at or
 * before `lastUsedStep` never matches, so a code seen once (over a shoulder, in a log) cannot be replayed.
 */
export function matchTotp(secretBase32: string, code: string, ms: number, lastUsedStep: number | null = null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const t = totp(secretBase32);
  if (!t) return null;
  const now = totpStep(ms);
  // Checked step by step (otpauth compares in constant time), so a replayed step is skipped rather than matched.
  for (const step of [now, now - 1, now + 1]) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue;
    if (t.validate({ token: code, timestamp: step * TOTP_STEP_SECONDS * 1000, window: 0 }) === 0) return step;
  }
  return null;
}

/** The `otpauth://` URI authenticator apps import (Google Authenticator's Key Uri Format). */
export function otpauthUri(secretBase32: string, account: string, issuer = 'refloop'): string {
  const t = totp(secretBase32, account, issuer);
  if (!t) throw new Error('not a base32 secret');
  return t.toString();
}

/** The URI as a QR code, an SVG document in a `data:` URL (the console's image policy allows data: images). */
export function qrCodeDataUrl(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const svg = qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
