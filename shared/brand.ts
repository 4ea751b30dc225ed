// One brand for every surface (issue #32): the design's `theme` is the brand (main colour, text and
// background colours, font); the more specific colours of the launcher (`theme.widget`), the
// landing page (`landingPages.styles`) and the emails (`settings.design`) follow it while they
// still hold their stock default. Pure functions, shared by the server (which derives the
// followers wherever a design is read) and the console (whose previews show unsaved changes).

/** The stock brand colour: the default of `theme.primaryColor` and of the colours that follow it. */
export const STOCK_BRAND = '#4f46e5';

/** The stock value of each colour that follows the brand (what a new program stores). */
export const STOCK_FOLLOWERS = {
  buttonTextColor: '#ffffff',
  widgetBackgroundColor: STOCK_BRAND,
  widgetColor: '#ffffff',
  landingAccentColor: STOCK_BRAND,
  landingBackgroundColor: '#ffffff',
  landingTextColor: '#111827',
  emailPrimaryColor: STOCK_BRAND,
} as const;

/** Two colours written the same (hex case and the 3-digit short form do not matter). */
export function sameColor(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const norm = (c: string) => {
    const m = /^#([0-9a-f]{3})$/i.exec(c.trim());
    return (m ? `#${[...m[1]!].map((x) => x + x).join('')}` : c.trim()).toLowerCase();
  };
  return norm(a) === norm(b);
}

/** The WCAG relative luminance of a hex colour (alpha ignored), or null for other notations. */
export function luminance(color: string): number | null {
  const m = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(color.trim());
  if (!m) return null;
  const h = m[1]!.length <= 4 ? [...m[1]!.slice(0, 3)].map((c) => c + c).join('') : m[1]!.slice(0, 6);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The WCAG contrast ratio of two hex colours (1 to 21), or null when either is not hex. */
export function contrastRatio(a: string, b: string): number | null {
  const la = luminance(a);
  const lb = luminance(b);
  if (la === null || lb === null) return null;
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** Black or white, whichever has the higher WCAG contrast on `background` (white for notations other than hex). */
export function readableOn(background: string): '#000000' | '#ffffff' {
  const l = luminance(background);
  if (l === null) return '#ffffff';
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

/** The theme fields the brand derivation reads and fills. */
export interface BrandTheme {
  primaryColor: string;
  textColor: string;
  backgroundColor: string;
  buttonTextColor: string;
  fontFamily: string;
  widget: { color: string; backgroundColor: string; borderRadius: string };
}

/** The design fields the colour derivation reads and fills. */
export interface BrandedColors {
  theme: BrandTheme;
  landingPages: { styles: { backgroundColor: string; textColor: string; accentColor: string } };
}

/**
 * The design's colours with every follower that still holds its stock value taken from the brand:
 * `theme.buttonTextColor` black or white for contrast on a changed main colour, `theme.widget`
 * (the launcher) the main colour and its text colour, `landingPages.styles` the main, text and
 * background colours. A value the owner chose (anything but the stock value) stays. `design` is
 * not changed; the answer is a copy of the parts it touches.
 */
export function brandColors<D extends BrandedColors>(design: D): D {
  const theme = design.theme;
  const primary = theme.primaryColor;
  const changed = !sameColor(primary, STOCK_BRAND);
  const buttonText = changed && sameColor(theme.buttonTextColor, STOCK_FOLLOWERS.buttonTextColor) ? readableOn(primary) : theme.buttonTextColor;
  const widgetBg = sameColor(theme.widget.backgroundColor, STOCK_FOLLOWERS.widgetBackgroundColor) ? primary : theme.widget.backgroundColor;
  const widgetColor =
    sameColor(theme.widget.color, STOCK_FOLLOWERS.widgetColor) && !sameColor(widgetBg, STOCK_BRAND) ? (sameColor(widgetBg, primary) ? buttonText : readableOn(widgetBg)) : theme.widget.color;
  const styles = design.landingPages.styles;
  return {
    ...design,
    theme: { ...theme, buttonTextColor: buttonText, widget: { ...theme.widget, backgroundColor: widgetBg, color: widgetColor } },
    landingPages: {
      ...design.landingPages,
      styles: {
        ...styles,
        accentColor: sameColor(styles.accentColor, STOCK_FOLLOWERS.landingAccentColor) ? primary : styles.accentColor,
        backgroundColor: sameColor(styles.backgroundColor, STOCK_FOLLOWERS.landingBackgroundColor) ? theme.backgroundColor : styles.backgroundColor,
        textColor: sameColor(styles.textColor, STOCK_FOLLOWERS.landingTextColor) ? theme.textColor : styles.textColor,
      },
    },
  };
}

/** The CSS font stack of the design's `theme.fontFamily` on a page of our own (INHERIT: there is no host page, so the system font). */
export function fontStack(fontFamily: string | undefined): string {
  return fontFamily === 'SERIF' ? 'Georgia, "Times New Roman", serif' : fontFamily === 'MONOSPACE' ? 'ui-monospace, Menlo, Consolas, monospace' : 'system-ui, sans-serif';
}

/** The email font stack of the design's `theme.fontFamily` (mail clients have no system-ui). */
export function emailFontStack(fontFamily: string | undefined): string {
  return fontFamily === 'SERIF' ? 'Georgia,"Times New Roman",serif' : fontFamily === 'MONOSPACE' ? 'Menlo,Consolas,monospace' : 'Helvetica,Arial,sans-serif';
}

/** The colours `brandColors` may fill, with their stock values. */
const COLOR_FOLLOWERS: ReadonlyArray<readonly [string, string]> = [
  ['theme.buttonTextColor', STOCK_FOLLOWERS.buttonTextColor],
  ['theme.widget.backgroundColor', STOCK_FOLLOWERS.widgetBackgroundColor],
  ['theme.widget.color', STOCK_FOLLOWERS.widgetColor],
  ['landingPages.styles.accentColor', STOCK_FOLLOWERS.landingAccentColor],
  ['landingPages.styles.backgroundColor', STOCK_FOLLOWERS.landingBackgroundColor],
  ['landingPages.styles.textColor', STOCK_FOLLOWERS.landingTextColor],
];

function at(doc: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
}

function withAt<D>(doc: D, path: string, value: unknown): D {
  const [head, ...rest] = path.split('.');
  const obj = doc as Record<string, unknown>;
  return { ...obj, [head!]: rest.length ? withAt(obj[head!], rest.join('.'), value) : value } as D;
}

/**
 * An unsaved draft of a design as it will read once saved (the console's previews and colour
 * fields): `saved` is the design as GET answered it (followers derived), `draft` it with the
 * owner's unsaved edits. A follower the owner has not edited and that `saved` shows as derived
 * from the brand is derived again from the draft's brand, so a new main colour shows on the
 * launcher and landing colours at once, as the server will show it.
 */
export function draftBrandColors<D extends BrandedColors>(saved: D, draft: D): D {
  let stocked = saved;
  for (const [path, stock] of COLOR_FOLLOWERS) stocked = withAt(stocked, path, stock);
  const derived = brandColors(stocked);
  let out = draft;
  for (const [path, stock] of COLOR_FOLLOWERS) {
    const value = at(saved, path);
    if (sameColor(value, at(derived, path)) && sameColor(at(draft, path), value)) out = withAt(out, path, stock);
  }
  return out === draft ? draft : brandColors(out);
}
