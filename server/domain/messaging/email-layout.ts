// The layout of program emails: merge tags rendered with HTML escaping, the text/plain version,
// how a participant is named to others, and the one HTML layout with the company footer.
import type { ParticipantRow } from '../participants/model.ts';
import type { CampaignEmails } from '../../../shared/schemas/program-config-emails.ts';
import { fillTags } from '../../../shared/merge-tags.ts';
import { fractionDigits } from '../platform/exchange-rates.ts';
import { contrastRatio, emailFontStack } from '../../../shared/brand.ts';

/** HTML that is inserted as is (already escaped by whoever built it). */
export interface SafeHtml {
  html: string;
}

/** An amount of money in minor units, written out in the reader's language when the email is rendered. */
export interface MoneyValue {
  minor: number;
  currency: string;
}

/** `{{commissionAmount}}`-style money: formatted by Intl in the email's language (issue #27). */
export const money = (minor: number, currency: string): MoneyValue => ({ minor, currency });

/** Merge-tag values; strings and numbers are HTML-escaped in bodies, `SafeHtml` is not; numbers and money are formatted for the email's language. */
export type EmailVars = Record<string, string | number | null | undefined | SafeHtml | MoneyValue>;

/** Subject, preheader and HTML body before merge tags are rendered. */
export interface EmailParts {
  subject: string;
  preheader: string;
  body: string;
}

/** The unsubscribe link's text in each program language (the templates themselves have one copy). */
const UNSUBSCRIBE_LABEL: Record<string, string> = {
  en: 'Unsubscribe',
  es: 'Darse de baja',
  fr: 'Se désabonner',
  de: 'Abmelden',
  it: 'Annulla l’iscrizione',
  'pt-BR': 'Cancelar inscrição',
  nl: 'Afmelden',
  pl: 'Wypisz się',
  sv: 'Avsluta prenumerationen',
  tr: 'Abonelikten çık',
  ja: '配信停止',
  ko: '수신 거부',
  'zh-CN': '退订',
  id: 'Berhenti berlangganan',
};

/** The footer's link to the hosted participant portal (design `landingPages.isEnabled`, issue #24) in each program language. */
const PORTAL_LABEL: Record<string, string> = {
  en: 'Your portal',
  es: 'Tu portal',
  fr: 'Votre portail',
  de: 'Ihr Portal',
  it: 'Il tuo portale',
  'pt-BR': 'Seu portal',
  nl: 'Jouw portaal',
  pl: 'Twój portal',
  sv: 'Din portal',
  tr: 'Portalınız',
  ja: 'マイポータル',
  ko: '내 포털',
  'zh-CN': '我的门户',
  id: 'Portal Anda',
};

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Plain text as HTML: escaped, line breaks kept (a participant's invitation note). */
export function textAsHtml(text: string): SafeHtml {
  return { html: escapeHtml(text).replace(/\r?\n/g, '<br>') };
}

/**
 * Renders `{{tag}}` and `{{tag|fallback}}` merge tags by the shared rules (shared/merge-tags.ts):
 * unknown or empty tags give the fallback or nothing, "Hi {{firstName}}," reads "Hi," without a
 * first name, and a value that ends its own sentence swallows the template's full stop after it.
 */
export function renderTags(template: string, vars: EmailVars, mode: 'html' | 'text', language = 'en'): string {
  return fillTags(
    template,
    (name) => {
      const v = Object.hasOwn(vars, name) ? vars[name] : undefined;
      if (v !== null && typeof v === 'object') {
        if ('html' in v) return mode === 'html' ? v.html : htmlToText(v.html);
        const text = formatMoney(v, language);
        return mode === 'html' ? escapeHtml(text) : text;
      }
      if (v === undefined || v === null || v === '') return '';
      const text = typeof v === 'number' ? v.toLocaleString(language) : v;
      return mode === 'html' ? escapeHtml(text) : text;
    },
    (fallback) => (mode === 'html' ? escapeHtml(fallback) : fallback),
  );
}

/** Money in the language's own notation (`12,50 €`, `€12.50`, `￥1,250`), with the currency's own number of decimals. */
function formatMoney(m: MoneyValue, language: string): string {
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency: m.currency }).format(m.minor / 10 ** fractionDigits(m.currency));
  } catch {
    return `${m.minor} ${m.currency}`;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** A readable plain-text version of an HTML fragment (the text/plain part of every email). */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<a\s[^>]*href\s*=\s*"([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label: string) => {
      const text = label.replace(/<[^>]+>/g, '').trim();
      return text && text !== href ? `${text} (${href})` : href;
    })
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|table)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, e: string) => ENTITIES[e]!)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `a***@example.com`: how names fall back when a participant gave none (never the full address). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** First name, else the masked address: what other people see of a participant in an email. */
export function displayName(p: Pick<ParticipantRow, 'first_name' | 'email'>): string {
  return p.first_name || maskEmail(p.email);
}

/** Subjects are one line of at most 255 characters. */
function subjectLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').trim().slice(0, 255);
}

/**
 * Renders parts with merge tags and wraps the body in the layout: preheader, logo, the program's
 * colours, and a footer with the company name, postal address, footer text and, for
 * participants, the unsubscribe link.
 */
export function layoutEmail(
  settings: CampaignEmails['settings'],
  company: string,
  language: string,
  parts: EmailParts,
  vars: EmailVars,
  footer: { unsubscribeUrl?: string; literalSubject?: string; portalUrl?: string },
  brand: { fontFamily?: string } = {},
): { subject: string; html: string; text: string } {
  const { design, contact } = settings;
  const subject = subjectLine(footer.literalSubject ?? renderTags(parts.subject, vars, 'text', language));
  const preheader = renderTags(parts.preheader, vars, 'text', language);
  const body = renderTags(parts.body, vars, 'html', language);
  // The brand's main colour (issue #32): a stripe above the content and the colour of the body's links.
  const primary = escapeHtml(design.primaryColor);
  // Links keep the text colour where the main colour would not read on the background (below 4.5:1, WCAG AA).
  const linkColor = (contrastRatio(design.primaryColor, design.backgroundColor) ?? 21) >= 4.5 ? primary : escapeHtml(design.textColor);
  const address = [contact.addressLine1, contact.addressLine2, [contact.postalCode, contact.city].filter(Boolean).join(' '), contact.state, contact.country]
    .filter((x): x is string => !!x)
    .join(', ');
  const unsubscribeLabel = UNSUBSCRIBE_LABEL[language] ?? UNSUBSCRIBE_LABEL.en!;
  const footerLines = [escapeHtml(company), address && escapeHtml(address), design.footerText && escapeHtml(design.footerText)].filter(Boolean);
  const portalLabel = PORTAL_LABEL[language] ?? PORTAL_LABEL.en!;
  if (footer.portalUrl) footerLines.push(`<a href="${escapeHtml(footer.portalUrl)}" style="color:inherit">${escapeHtml(portalLabel)}</a>`);
  if (footer.unsubscribeUrl) footerLines.push(`<a href="${escapeHtml(footer.unsubscribeUrl)}" style="color:inherit">${escapeHtml(unsubscribeLabel)}</a>`);
  const html = `<!doctype html>
<html lang="${escapeHtml(language)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title><style>a{color:${linkColor}}</style></head>
<body style="margin:0;padding:0;background:${escapeHtml(design.backgroundColor)};color:${escapeHtml(design.textColor)};font-family:${escapeHtml(emailFontStack(brand.fontFamily))};line-height:1.5">
<span style="display:none;max-height:0;overflow:hidden;opacity:0">${escapeHtml(preheader)}</span>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px"><tr><td style="border-top:4px solid ${primary};padding-top:12px">
${design.logoUrl ? `<p><img src="${escapeHtml(design.logoUrl)}" alt="${escapeHtml(company)}" style="max-height:48px"></p>\n` : ''}${body}
<hr style="border:none;border-top:1px solid rgba(127,127,127,.3);margin:24px 0">
<p style="font-size:12px;opacity:.75">${footerLines.join('<br>')}</p>
</td></tr></table>
</td></tr></table>
</body>
</html>`;
  const textFooter = [company, address, design.footerText, footer.portalUrl && `${portalLabel}: ${footer.portalUrl}`, footer.unsubscribeUrl && `${unsubscribeLabel}: ${footer.unsubscribeUrl}`].filter(Boolean).join('\n');
  const text = `${htmlToText(body)}\n\n--\n${textFooter}\n`;
  return { subject, html, text };
}
