/** Escapes text for HTML element content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** HTML a caller built from escaped parts (a link, `<strong>` around a value), put into a message as it is. */
export class Markup {
  constructor(readonly html: string) {}
}

/** Marks already-escaped HTML for `message`. */
export const markup = (html: string): Markup => new Markup(html);

/**
 * A catalogue message as HTML: the message's own text escaped, text values escaped, `Markup` values
 * inserted as they are, numbers formatted by the catalogue (`count` still picks the plural form).
 */
export function message<K extends string>(t: (key: K, vars?: Record<string, string | number>) => string, key: K, vars: Record<string, string | number | Markup> = {}): string {
  const slots: string[] = [];
  const args: Record<string, string | number> = {};
  for (const [name, v] of Object.entries(vars)) {
    if (typeof v === 'number') args[name] = v;
    else {
      args[name] = `\u0000${slots.length}\u0000`;
      slots.push(v instanceof Markup ? v.html : esc(v));
    }
  }
  return esc(t(key, args)).replace(/\u0000(\d+)\u0000/g, (_, i: string) => slots[Number(i)]!);
}

/** A complete, accessible page in our plain style; `body` must already be escaped HTML. The tab reads "title · refloop" unless the title names refloop itself; `language` is the page's `lang` (issue #27). */
export function page(title: string, body: string, language = 'en'): string {
  return `<!doctype html>
<html lang="${esc(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(/\brefloop\b/.test(title) ? title : `${title} · refloop`)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { max-width: 44rem; margin: 2rem auto; padding: 0 1rem; }
  h1, p, label, legend { overflow-wrap: break-word; hyphens: auto; }
  label { display: block; margin-top: .75rem; font-weight: 600; }
  input, select, button { font: inherit; padding: .4rem .6rem; }
  input[type=text], input[type=email], input[type=password], select { width: 100%; box-sizing: border-box; }
  button { margin-top: 1rem; cursor: pointer; }
  .notice { padding: .75rem 1rem; border-left: 4px solid #2a7; background: rgba(40,170,120,.1); }
  .error { padding: .75rem 1rem; border-left: 4px solid #c33; background: rgba(200,50,50,.1); }
  code.secret { display: block; padding: .75rem; word-break: break-all; background: rgba(127,127,127,.15); }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid rgba(127,127,127,.3); }
  fieldset { border: 1px solid rgba(127,127,127,.4); margin-top: 1rem; }
  :focus-visible { outline: 3px solid #36f; outline-offset: 2px; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}
