// Merge tags in owner-written texts (`{{firstName}}`, `{{rewardDescription|a reward}}`): one set of
// rules for the program emails, the widget's design texts and the hosted share page, so a text
// reads the same wherever it is shown.

/** A tag with the space before it and one punctuation mark right after it. */
const TAG = /(\s?)\{\{\s*([^{}|]+?)\s*(?:\|\s*([^{}]*?)\s*)?\}\}([,.!?;:]?)/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/**
 * Fills `{{tag}}` and `{{tag|fallback}}`. `value(name)` is a tag's text, '' when unknown or empty;
 * then the fallback (through `encode`, e.g. HTML escaping) or nothing is used. An empty tag right
 * before punctuation also drops the space before it ("Hi {{firstName}}," reads "Hi,"), and a value
 * that ends its own sentence (an owner's "… their first order.") swallows the full stop, question or
 * exclamation mark after the tag, so no text reads "order..".
 */
export function fillTags(template: string, value: (name: string) => string, encode: (fallback: string) => string = (s) => s): string {
  return template.replace(TAG, (_m, space: string, name: string, fallback: string | undefined, punct: string) => {
    const v = value(name);
    const out = v !== '' ? v : fallback === undefined ? '' : encode(fallback);
    if (out === '') return punct;
    return /[.!?…]\s*$/.test(out) && /^[.!?]$/.test(punct) ? space + out.trimEnd() : space + out + punct;
  });
}

/**
 * A design text as plain text: markup is stripped (never parsed or injected), common entities read
 * as their characters, and merge tags filled from `vars` (own keys only: a tag named after an
 * Object.prototype member, `{{constructor}}`, is unknown, not code).
 */
export function designText(value: string, vars: Record<string, string | number | null | undefined>): string {
  return fillTags(
    value.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>|<\/?[a-z!][^>]*>/gi, '').replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e]!),
    (name) => {
      const v = Object.hasOwn(vars, name) ? vars[name] : null;
      return v == null ? '' : String(v);
    },
  ).trim();
}
