// The share panel's icons (issue #24): ONE inline SVG sprite holding a symbol for each channel the
// program enables (never a font, never a fetch), and the brand colours `design.share.buttonStyle`
// may ask for. Its own lazy chunk (issue #32): boot requests it beside the share panel's chunk, but
// the first paint does not wait for it; until it arrives each button shows its text label beside an
// empty 18 px icon box, so nothing moves when the icons fill in. Icons and brand colours are a
// brand's look (`aria-hidden`): every button keeps its text name and its size without them. No
// imports (a component here would pull Preact out of window.js into a shared chunk): the sprite's
// symbols are drawn here (`drawSprite`, into share.tsx's one hidden svg, so the drawing travels
// with the icons instead of in the first paint); share.tsx keeps the shape and
// label-shown rules, which set the buttons' size.
/** 24 × 24 line icons; a path starting with `*` is filled instead of stroked. */
export const PATHS: Record<string, string[]> = {
  copy: ['M9 9h11v11H9z', 'M5 15H4V4h11v1'],
  email: ['M3 5h18v14H3z', 'M3 6l9 7 9-7'],
  sms: ['M4 4h16v12H9l-5 4z', 'M8 10h.01M12 10h.01M16 10h.01'],
  facebook: ['M15 3h-2a4 4 0 0 0-4 4v14', 'M6 11h8'],
  twitter: ['*M3 3h5.5l12.5 18h-5.5z', 'M20.5 3L13 11.5M3.5 21l7.5-8.5'],
  linkedin: ['M3 3h18v18H3z', 'M8 10v7M8 7v.01M12 17v-7M12 13a3 3 0 0 1 6 0v4'],
  pinterest: ['M12 3a9 9 0 1 1 0 18 9 9 0 0 1 0-18', 'M10 20l2.5-10', 'M10.5 14c3 1 6-1 6-4a4.5 4.5 0 0 0-9 0c0 1 .3 1.8 1 2.3'],
  threads: ['M16 12a4 4 0 1 1-8 0 4 4 0 0 1 8 0v1.5a2.5 2.5 0 0 0 5 0V12a9 9 0 1 0-4 7.5'],
  bluesky: ['*M12 11C10 7 6.5 4 4.5 4S2 6.5 3 9.5C4 12 6 13 9 13c-3 1-4 3-2 5s4-1 5-4c1 3 3 6 5 4s1-4-2-5c3 0 5-1 6-3.5S21.5 4 19.5 4 14 7 12 11z'],
  messenger: ['M12 3c-5 0-9 3.6-9 8.2 0 2.6 1.2 4.8 3.2 6.3V21l3-1.6c.9.2 1.8.4 2.8.4 5 0 9-3.6 9-8.2S17 3 12 3z', 'M7 14l4-4 3 2.5 3-3.5'],
  whatsapp: ['M4 20l1.3-3.8A8.5 8.5 0 1 1 8 18.8z', 'M9 8.5c0 3.5 3 6.5 6.5 6.5l1-1.6-2-1-1 1c-1.2-.6-2.3-1.7-2.9-2.9l1-1-1-2z'],
  telegram: ['M21 4L3 11l6 2 2 6 3-4 5 4z', 'M9 13l8-6'],
  reddit: ['M4 14.5a8 5.5 0 1 0 16 0 8 5.5 0 1 0-16 0', 'M12 9l1.2-5 4.3 1', 'M9 14v.01M15 14v.01M9.5 17c1.5 1 3.5 1 5 0'],
  tumblr: ['M11 3v13a4 4 0 0 0 4 4h2', 'M7 9h9'],
};

/** Brand colours, darkened where the brand's own would not give white text 4.5:1 (WCAG AA). */
export const BRAND: Record<string, string> = {
  facebook: '#0866ff',
  twitter: '#000',
  linkedin: '#0a66c2',
  pinterest: '#e60023',
  threads: '#000',
  bluesky: '#0560d6',
  messenger: '#0866ff',
  whatsapp: '#0b7a63',
  telegram: '#0077b5',
  reddit: '#d93a00',
  tumblr: '#35465c',
};

/**
 * Draws the sprite's symbols into `svg` (the share panel's one hidden sprite, which Preact renders
 * empty): the copy icon and each of `names` this table has, each symbol scoped to the shadow root that
 * holds it, as share.tsx's `I` names it. Built with DOM calls from our own constant paths (never
 * markup: the widget hands no HTML to the DOM), here rather than in share.tsx, so this lazy chunk
 * carries the drawing and the first paint does not.
 */
export function drawSprite(svg: Element, names: string[]): void {
  const NS = 'http://www.w3.org/2000/svg';
  const make = (tag: string, attrs: Record<string, string>) => {
    const el = document.createElementNS(NS, tag);
    for (const k in attrs) el.setAttribute(k, attrs[k]!);
    return el;
  };
  svg.replaceChildren(
    ...['copy', ...names]
      .filter((n) => n in PATHS)
      .map((n) => {
        const symbol = make('symbol', { id: `grsf-i-${n}`, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round', 'stroke-linejoin': 'round' });
        for (const d of PATHS[n]!) symbol.append(make('path', d[0] === '*' ? { d: d.slice(1), fill: 'currentColor' } : { d }));
        return symbol;
      }),
  );
}
