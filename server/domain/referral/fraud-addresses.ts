// Address matching for anti-fraud: the mailbox an email reaches, one form per IP address, CIDR and
// email-domain entries, and the program's email rules (`emailRefused`, also used by invitations).
import net from 'node:net';
import type { CampaignOptions } from '../../../shared/schemas/program-config-options.ts';
import { isDisposableEmail } from '../platform/email-policy.ts';
import { emailKey } from '../participants/model.ts';

/** Role mailboxes: the same name at two domains says nothing about the person. */
const ROLE_LOCALS = new Set(['info', 'admin', 'contact', 'hello', 'sales', 'support', 'office', 'mail', 'team', 'billing', 'help', 'hi', 'me', 'test']);
/** Mailboxes where dots in the name part are ignored, and the aliases of their domain. */
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The mailbox an address delivers to, as far as we can tell: lower-cased, a `+tag` removed (most
 * providers deliver `name+tag@` to `name@`), and for Gmail the dots removed and googlemail.com folded in.
 */
export function canonicalEmail(email: string): string {
  const lower = emailKey(email);
  const at = lower.lastIndexOf('@');
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  if (dotless) {
    domain = dotless;
    local = local.replace(/\./g, '');
  }
  return `${local}@${domain}`;
}

/** The name part with separators removed, for "same person, other provider" (null for short or role names). */
export function personalName(canonical: string): string | null {
  const local = canonical.slice(0, canonical.lastIndexOf('@'));
  if (ROLE_LOCALS.has(local)) return null;
  const bare = local.replace(/[._-]/g, '');
  return bare.length >= 4 ? bare : null;
}

/** One textual form per address: IPv4-mapped IPv6 as IPv4, IPv6 compressed and lower-cased. */
export function canonicalIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v = ip.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(v);
  if (mapped) return mapped[1]!;
  if (net.isIPv6(v)) {
    try {
      return new URL(`http://[${v}]/`).hostname.slice(1, -1);
    } catch {
      return v.toLowerCase();
    }
  }
  return v;
}

/** The forms an address may be stored in: as sent, and canonical (stored values are whatever the caller sent). */
export function storedForms(ip: string): string[] {
  return [...new Set([ip, canonicalIp(ip)!])];
}

/** True when `ip` is the address or inside the CIDR range `entry` (IPv4 entries also match IPv4-mapped IPv6). */
export function ipInEntry(ip: string, entry: string): boolean {
  const [addr, bits] = entry.split('/');
  const family = net.isIPv4(addr!) ? 'ipv4' : net.isIPv6(addr!) ? 'ipv6' : null;
  if (!family) return false;
  const list = new net.BlockList();
  try {
    if (bits === undefined) list.addAddress(addr!, family);
    else list.addSubnet(addr!, Number(bits), family);
    return list.check(ip, net.isIPv4(ip) ? 'ipv4' : 'ipv6');
  } catch {
    return false;
  }
}

/** True when an email domain is `entry` or below it; `*.example.com` means subdomains only. */
export function domainMatches(domain: string, entry: string): boolean {
  if (entry.startsWith('*.')) return domain.endsWith(entry.slice(1));
  return domain === entry || domain.endsWith(`.${entry}`);
}

/**
 * Whether the program's email rules refuse an address: not on the allowed list, and on the blocked
 * list (the same mailbox: case, `+tag` and Gmail dots ignored), at a blocked domain (its subdomains
 * too; `*.domain` only subdomains) or, with `blockBurnerEmails`, at a disposable provider. Sign-up
 * screening (`Fraud.assess`) applies the same rules; invitations use this to skip such addresses.
 */
export function emailRefused(email: string, o: CampaignOptions['fraud']): boolean {
  const key = emailKey(email);
  const canon = canonicalEmail(key);
  const same = (entry: string) => entry === key || canonicalEmail(entry) === canon;
  if (o.allowedEmails.some(same)) return false;
  const domain = canon.slice(canon.lastIndexOf('@') + 1);
  return o.blockedEmails.some(same) || o.blockedEmailDomains.some((d) => domainMatches(domain, d)) || (o.blockBurnerEmails && isDisposableEmail(key));
}
