// The share panel's icons (issue #24): ONE inline SVG sprite holding a symbol for each channel the
// program enables (never a font, never a fetch), and the share buttons' design styling
// (`design.share.buttonStyle`: shape, label shown, brand colours). A lazy chunk the share panel asks
// for when it renders: until it arrives the buttons show their text and an empty 18 px box, so
// nothing moves. The icons are decorative (`aria-hidden`): every button keeps its text name.
import { design } from './ui.tsx';

/** 24 × 24 line icons; a path starting with `*` is filled instead of stroked. */
const PATHS: Record<string, string[]> = {
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
const BRAND: Record<string, string> = {
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

/** The sprite's symbol id for an icon (ids are scoped to the shadow root that holds the sprite). */
export const iconId = (name: string) => `grsf-i-${name}`;

/** Whether the sprite has an icon for a channel. */
export const hasIcon = (name: string) => name in PATHS;

/** Button style from the design: shape, label shown, brand colours (rules for the `.sb` row). */
function styles(): string {
  const style = design().share?.buttonStyle ?? {};
  const r = style.shape === 'SQUARE' ? '0' : style.shape === 'CIRCLE' ? '999px' : '';
  let css = `.sb .btn{display:inline-flex;gap:6px;align-items:center}${r ? `.sb .btn{border-radius:${r}}` : ''}`;
  if (style.isLabelShown === false) css += '.sb .btn .l{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.sb .btn{padding:8px}';
  if (style.isBrandColored) for (const [c, v] of Object.entries(BRAND)) css += `.sb [data-c=${c}]{background:${v};border-color:${v};color:#fff}`;
  return css;
}

/** The one sprite: a symbol per enabled channel (and the copy icon), plus the design's button styles. */
export function Sprite({ names }: { names: string[] }) {
  return (
    <>
      <style>{styles()}</style>
      <svg aria-hidden="true" width="0" height="0" style="position:absolute">
        {['copy', ...names].filter(hasIcon).map((n) => (
          <symbol key={n} id={iconId(n)} viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
            {PATHS[n]!.map((d) => (d[0] === '*' ? <path key={d} d={d.slice(1)} fill="currentColor" /> : <path key={d} d={d} />))}
          </symbol>
        ))}
      </svg>
    </>
  );
}
