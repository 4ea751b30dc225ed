import dns from 'node:dns/promises';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

// Outbound requests to addresses the caller chose (webhook payload URLs) must not reach the
// server's own network: loopback, private ranges, link-local (cloud metadata lives at
// 169.254.169.254), CGNAT (Alibaba's metadata at 100.100.100.200), multicast and reserved space.

const FORBIDDEN = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", including 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (Oracle metadata 192.0.0.192)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard-only
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** The 8 hextets of an IPv6 address (with an embedded dotted IPv4 tail expanded), or null. */
function hextets(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const o = dotted[1]!.split('.').map(Number);
    s = s.slice(0, -dotted[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = s.includes('::') ? 8 - h.length - t.length : 0;
  const all = [...h, ...Array(fill).fill('0'), ...t].map((x) => parseInt(x, 16));
  return all.length === 8 && all.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? all : null;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
function embeddedIpv4(ip: string): string | null {
  const h = hextets(ip);
  if (!h) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (h[5] === 0xffff || h[5] === 0) && (h[6] !== 0 || h[7]! > 1)) return v4(h[6]!, h[7]!); // ::ffff:a.b.c.d, ::a.b.c.d
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return v4(h[6]!, h[7]!); // NAT64 64:ff9b::/96
  if (h[0] === 0x2002) return v4(h[1]!, h[2]!); // 6to4
  return null;
}

/** True when an outbound request to this IP address could reach a private or special-purpose network. */
export function isForbiddenAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return FORBIDDEN.check(ip, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(ip);
  if (inner && FORBIDDEN.check(inner, 'ipv4')) return true;
  return FORBIDDEN.check(ip.split('%')[0]!, 'ipv6');
}

/** Why a target URL was refused; `code` becomes the field error's code. */
export class TargetRefusedError extends Error {
  constructor(
    readonly code: 'INVALID_URL' | 'HTTPS_REQUIRED' | 'UNRESOLVABLE' | 'PRIVATE_ADDRESS',
    message: string,
  ) {
    super(message);
  }
}

/** A checked target: the URL plus the address to connect to (null when private targets are allowed). */
export interface Target {
  url: URL;
  address: string | null;
  family: 4 | 6;
}

/** Options of `checkTarget`. */
export interface TargetPolicy {
  allowPrivate: boolean;
  requireHttps: boolean;
  /** Resolver, replaceable in tests; defaults to the system resolver (what connect would use). */
  lookup?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

const LOOKUP_TIMEOUT_MS = 5_000;

async function systemLookup(host: string): Promise<Array<{ address: string; family: number }>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), LOOKUP_TIMEOUT_MS);
  });
  try {
    return await Promise.race([dns.lookup(host, { all: true, verbatim: true }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Validates a target URL and resolves its host. Every resolved address must be public (one private
 * answer refuses the whole name, so round-robin DNS cannot smuggle one in). The returned address is
 * the one to connect to, so a second resolution (DNS rebinding) cannot change where the bytes go.
 */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<Target> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('INVALID_URL', 'Must be an absolute http or https URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefusedError('INVALID_URL', 'Must be an http or https URL.');
  if (policy.requireHttps && url.protocol !== 'https:') throw new TargetRefusedError('HTTPS_REQUIRED', 'Must be an https URL.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new TargetRefusedError('INVALID_URL', 'The URL has no host.');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await (policy.lookup ?? systemLookup)(host);
    } catch (err) {
      throw new TargetRefusedError('UNRESOLVABLE', `The host ${host} could not be resolved (${(err as { code?: string }).code ?? (err as Error).message}).`);
    }
    if (addresses.length === 0) throw new TargetRefusedError('UNRESOLVABLE', `The host ${host} has no addresses.`);
  }
  if (policy.allowPrivate) return { url, address: null, family: 4 };
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  if (bad) {
    throw new TargetRefusedError('PRIVATE_ADDRESS', `The host ${host} resolves to ${bad.address}, a private, loopback, link-local or reserved address; webhooks may only target public addresses.`);
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for node:http(s) that always answers the already-checked address (defeats DNS rebinding). */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}
