import { ValidationError } from '../errors.ts';
import { ERROR_CODES } from '../../shared/errors.ts';

/**
 * The shape every JSON request body must fit, on every entry point (REST, participant API, MCP).
 * The deepest legitimate body of the contract is a configuration document (design: 5 levels) or an
 * AF8 `taxLines` item; the longest legitimate array is a fraud list (500 entries) and the widest
 * object a program's `values`/`levels` maps (200 keys). Generous room above those, far below what
 * hurts: deeper nesting overflowed the stack (JSON.stringify, zod), wider objects made error bodies
 * of megabytes.
 */
export const JSON_BODY_LIMITS = { depth: 32, members: 1000 } as const;

/** Media types parsed as JSON on `/v2` and `/mcp` (@koa/bodyparser's defaults). */
export const JSON_MEDIA_TYPES = ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/reports+json', 'application/scim+json'];

const QUOTE = 34;
const BACKSLASH = 92;
/** What each ASCII character is to the scan: 0 nothing, 1 a quote, 2 an opening, 3 a closing bracket or brace, 4 a comma. */
const KIND = new Uint8Array(128);
KIND[QUOTE] = 1;
KIND[123] = KIND[91] = 2;
KIND[125] = KIND[93] = 3;
KIND[44] = 4;

/**
 * What is wrong with the shape of a JSON text, found in one linear pass over the raw characters
 * before anything parses it: a container nested deeper than the limit, or one with more members
 * (object keys or array elements) than the limit. Strings are skipped with `indexOf`. The pass does
 * not validate the syntax (JSON.parse does that next); on malformed text it only stops early.
 */
export function jsonShapeProblem(text: string, limits: { depth: number; members: number } = JSON_BODY_LIMITS): 'TOO_DEEP' | 'TOO_MANY_MEMBERS' | null {
  const n = text.length;
  // Fewer characters than either limit needs cannot break it.
  if (n <= 2 * limits.depth && n <= 2 * limits.members) return null;
  const maxDepth = limits.depth;
  const maxCommas = limits.members - 1;
  // Commas seen in each open container; depth never passes the limit, so this never grows.
  const commas = new Int32Array(maxDepth + 2);
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i++);
    const kind = c < 128 ? KIND[c]! : 0;
    if (kind === 0) continue;
    if (kind === 1) {
      let j = i;
      for (;;) {
        j = text.indexOf('"', j);
        if (j < 0) return null;
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        // An even run of backslashes escapes itself, not the quote.
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      i = j + 1;
    } else if (kind === 2) {
      if (++depth > maxDepth) return 'TOO_DEEP';
      commas[depth] = 0;
    } else if (kind === 3) {
      if (--depth < 0) return null;
    } else if (depth > 0 && ++commas[depth]! > maxCommas) {
      return 'TOO_MANY_MEMBERS';
    }
  }
  return null;
}

/** The 400 for a body whose shape is over the limits: the error object with a `body` field error. */
export function shapeError(problem: 'TOO_DEEP' | 'TOO_MANY_MEMBERS', limits: { depth: number; members: number } = JSON_BODY_LIMITS): ValidationError {
  const message =
    problem === 'TOO_DEEP'
      ? `The request body nests objects and arrays more than ${limits.depth} levels deep.`
      : `An object or array in the request body has more than ${limits.members} members.`;
  return new ValidationError(message, [{ field: 'body', code: problem, message }], ERROR_CODES.BAD_REQUEST);
}

const invalidJson = () => new ValidationError('The request body is not valid JSON.', undefined, ERROR_CODES.INVALID_JSON);

// What @hapi/bourne (co-body's parser) looks for: a key that would replace an object's prototype.
const SUSPECT_PROTO = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR = /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/** True when a parsed (and already bounded) value holds a `__proto__` key or a `constructor.prototype`. */
function poisoned(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) {
      if (Object.hasOwn(v, '__proto__')) return true;
      const ctor = (v as Record<string, unknown>).constructor;
      if (Object.hasOwn(v, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
    }
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}

/**
 * Parses a request body's text as JSON after checking its shape (`jsonShapeProblem`), so nothing
 * deeper or wider than `JSON_BODY_LIMITS` is ever built, walked or stringified. Empty text is `{}`.
 * `strict`: the top level must be an object or array, and prototype keys are refused (what
 * co-body did on `/v2` and `/mcp`). Failures are 400s in the error object.
 */
export function parseJsonBody(text: string, opts: { strict?: boolean } = {}): unknown {
  if (!text) return {};
  const problem = jsonShapeProblem(text);
  if (problem) throw shapeError(problem);
  if (opts.strict && !/^[\x20\x09\x0a\x0d]*[[{]/.test(text)) throw invalidJson();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson();
  }
  if (opts.strict && (SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text)) && poisoned(value)) throw invalidJson();
  return value;
}
