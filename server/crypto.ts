import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes for ids, drawn from the CSPRNG in blocks: a referral trigger makes eight ids, and a
// randomBytes call per id cost more than the id. Each byte is used once.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;

/** An opaque, URL-safe, unguessable id of lowercase letters and digits (20 chars ≈ 103 bits). */
export function newId(length = 20): string {
  let out = '';
  while (out.length < length) {
    if (poolAt >= POOL_SIZE) {
      crypto.randomFillSync(pool);
      poolAt = 0;
    }
    const b = pool[poolAt++]!;
    // 252 = 7 * 36: reject the tail so every character is uniform.
    if (b < 252) out += ALPHABET[b % 36];
  }
  return out;
}

/**
 * An id of the same shape (20 lowercase letters and digits) that sorts by creation time: the
 * millisecond in base36 (9 characters), then 11 random ones (≈ 57 bits). For rows written at a high
 * rate and never used as a capability (issued rewards, webhook events and deliveries, jobs): random
 * keys put every insert on a random page of each index, and those pages are what a commit writes.
 */
export function newOrderedId(): string {
  return Date.now().toString(36).padStart(9, '0') + newId(11);
}

/** A high-entropy secret token (base64url). */
export function newSecret(bytes = 24): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/** SHA-256 hex of a high-entropy secret; such secrets are stored only this way. */
export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex');
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Hashes a password with scrypt (a slow KDF): `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Checks a password against a stored scrypt hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return crypto.timingSafeEqual(actual, expected);
}

/** AES-256-GCM sealing for secrets we must be able to read back (idempotent replays of a rotated key). */
export class Sealer {
  readonly #key: Buffer;
  constructor(secret: string) {
    this.#key = crypto.createHash('sha256').update(`refloop-seal:${secret}`).digest();
  }
  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    const enc = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `${iv.toString('base64url')}.${c.getAuthTag().toString('base64url')}.${enc.toString('base64url')}`;
  }
  open(sealed: string): string | null {
    try {
      const [iv, tag, enc] = sealed.split('.');
      const d = crypto.createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv!, 'base64url'));
      d.setAuthTag(Buffer.from(tag!, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(enc!, 'base64url')), d.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
