import { ATTRIBUTION_LIMITS, ATTRIBUTION_PROVIDERS, UTM_KEYS, cleanUrl, stripControls } from '../../../shared/attribution.ts';
import type { VisitCreate } from '../../../shared/schemas/mobile.ts';

// The visit body checked by hand: the hottest request of the system spent about a fifth of its CPU
// in zod. This accepts only bodies the zod schema (`visitCreate`) accepts and returns what it would
// return (a property test holds the two together); anything else returns null, and zod then decides
// and words the 400.

const VISIT_ID = /^[A-Za-z0-9_-]{8,64}$/;
const CODE = /^[A-Za-z0-9_-]{1,64}$/;
const CLICK_ID = /^[\x21-\x7e]{1,128}$/;
const PROVIDERS = new Set<string>(ATTRIBUTION_PROVIDERS);
const UTM = new Set<string>(UTM_KEYS);
const URL_MAX = 8192;
const UTM_MAX = 1024;

// Landing and referring pages repeat across visits; cleanUrl is pure, so its answers can be reused.
const cleaned = new Map<string, string | undefined>();
function cleanCached(v: string): string | undefined {
  if (cleaned.has(v)) return cleaned.get(v);
  const out = cleanUrl(v);
  if (cleaned.size >= 1000) cleaned.clear();
  cleaned.set(v, out);
  return out;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function attributionOf(raw: unknown): VisitCreate['attribution'] | undefined {
  if (raw === null) return null;
  if (!isPlain(raw)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    switch (k) {
      case 'referralCode':
      case 'campaignId':
        if (typeof v !== 'string' || !CODE.test(v)) return undefined;
        out[k] = v;
        break;
      case 'clickId':
        if (typeof v !== 'string' || !CLICK_ID.test(v)) return undefined;
        out[k] = v;
        break;
      case 'unique':
        if (typeof v !== 'boolean') return undefined;
        out[k] = v;
        break;
      case 'destination':
      case 'referrer':
        if (typeof v !== 'string' || v.length > URL_MAX) return undefined;
        out[k] = cleanCached(v);
        break;
      case 'utm': {
        if (!isPlain(v)) return undefined;
        const utm: Record<string, string> = {};
        for (const u of Object.keys(v)) {
          const value = v[u];
          if (!UTM.has(u) || typeof value !== 'string' || value.length > UTM_MAX) return undefined;
          utm[u] = stripControls(value).slice(0, ATTRIBUTION_LIMITS.utmValue);
        }
        out.utm = utm;
        break;
      }
      default:
        return undefined;
    }
  }
  return out as VisitCreate['attribution'];
}

/** The parsed visit body when it is plainly valid; null sends it through zod (invalid or unusual bodies). */
export function fastVisitBody(raw: unknown): VisitCreate | null {
  if (!isPlain(raw)) return null;
  let visitId: string | undefined;
  let attribution: VisitCreate['attribution'] | undefined;
  let provider: VisitCreate['provider'];
  let firstVisit: string | undefined;
  let hasAttribution = false;
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    switch (k) {
      case 'visitId':
        if (typeof v !== 'string' || !VISIT_ID.test(v)) return null;
        visitId = v;
        break;
      case 'attribution':
        attribution = attributionOf(v);
        if (attribution === undefined) return null;
        hasAttribution = true;
        break;
      case 'provider':
        if (typeof v !== 'string' || !PROVIDERS.has(v)) return null;
        provider = v as VisitCreate['provider'];
        break;
      case 'firstVisit':
        if (typeof v !== 'string' || v.length > 256) return null;
        firstVisit = v;
        break;
      default:
        return null;
    }
  }
  if (visitId === undefined || !hasAttribution) return null;
  const out: VisitCreate = { visitId, attribution: attribution! };
  if (provider !== undefined) out.provider = provider;
  if (firstVisit !== undefined) out.firstVisit = firstVisit;
  return out;
}
