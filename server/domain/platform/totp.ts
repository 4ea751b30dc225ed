import crypto from 'node:crypto';

// RFC 6238 time-based one-time passwords (issue #35): HMAC-SHA1, 6 digits, 30-second steps, the
// step before and after accepted for clock drift. The `otpauth` package is not installed, and the
// algorithm is a few lines of node:crypto (docs/decisions.md); RFC 4226 §5.3's dynamic truncation.

/** Seconds per step (RFC 6238 X). */
export const TOTP_STEP_SECONDS = 30;
/** Digits of a code. */
export const TOTP_DIGITS = 6;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, the alphabet authenticator apps read. */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and padding ignored); null for any other character. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) return null;
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new shared secret: 20 random bytes (160 bits, RFC 4226's recommended length), base32. */
export function newTotpSecret(): string {
  return base32Encode(crypto.randomBytes(20));
}

/** The step number of a time in epoch milliseconds. */
export function totpStep(ms: number): number {
  return Math.floor(ms / 1000 / TOTP_STEP_SECONDS);
}

/** The code of one step (RFC 4226 HOTP with the step as counter). */
export function hotp(secret: Buffer, counter: number): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = crypto.createHmac('sha1', secret).update(msg).digest();
  const offset = mac[mac.length - 1]! & 15;
  const bin = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

/** The code an authenticator shows at `ms` for a base32 secret. */
export function totpCode(secretBase32: string, ms: number): string {
  return hotp(base32Decode(secretBase32) ?? Buffer.alloc(0), totpStep(ms));
}

/**
 * The step a code matches at `ms` (the current one, or one step either side), or null. A step at or
 * before `lastUsedStep` never matches, so a code seen once (over a shoulder, in a log) cannot be replayed.
 */
export function matchTotp(secretBase32: string, code: string, ms: number, lastUsedStep: number | null = null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const secret = base32Decode(secretBase32);
  if (!secret || secret.length === 0) return null;
  const now = totpStep(ms);
  for (const step of [now, now - 1, now + 1]) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue;
    const expected = hotp(secret, step);
    if (crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(code))) return step;
  }
  return null;
}

/** The `otpauth://` URI authenticator apps import (Google Authenticator's Key Uri Format). */
export function otpauthUri(secretBase32: string, account: string, issuer = 'refloop'): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${secretBase32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_STEP_SECONDS}`;
}
