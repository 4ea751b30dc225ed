/** Escapes text for HTML element content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A complete, accessible page in our plain style; `body` must already be escaped HTML. The tab reads "title · refloop" unless the title names refloop itself. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(/\brefloop\b/.test(title) ? title : `${title} · refloop`)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { max-width: 44rem; margin: 2rem auto; padding: 0 1rem; }
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
