// One brand for every surface (issue #32): the fields that follow the brand while they still hold
// their stock default, derived when a document is read (never stored, so a later change of the
// brand still reaches them). The design's colours: shared/brand.ts (`brandColors`); here also the
// landing page's headline, which follows the window's "heading for visitors" once the owner wrote
// one, and the emails' main colour and logo, which follow the design's.
import type { CampaignDesign } from '../../../shared/schemas/program-config-design.ts';
import type { CampaignEmails } from '../../../shared/schemas/program-config-emails.ts';
import { brandColors, sameColor, STOCK_FOLLOWERS } from '../../../shared/brand.ts';
import { isDefaultDesignText } from './design-copy/index.ts';

/** The landing page's headline field's limit (shared/schemas/program-config-design.ts). */
const HEADLINE_MAX = 255;

const isDefaultHeadline = (v: string) => isDefaultDesignText('headlineR', v) || isDefaultDesignText('headlineA', v);
const isDefaultPreText = (v: string) => isDefaultDesignText('preR', v) || isDefaultDesignText('preA', v);

/**
 * The completed design with its brand followers filled: `brandColors`, and the landing headline
 * the owner's own "heading for visitors" (`header.preText`) while the headline is a stock default
 * text (in any language) and the heading fits the headline's limit. `design` is not changed.
 */
export function brandDesign<D extends CampaignDesign>(design: D): D {
  const out = brandColors(design);
  const pre = design.header.preText.trim();
  const headline = design.landingPages.content.headline;
  if (pre && pre.length <= HEADLINE_MAX && !isDefaultPreText(design.header.preText) && isDefaultHeadline(headline)) {
    out.landingPages = { ...out.landingPages, content: { ...out.landingPages.content, headline: pre } };
  }
  return out;
}

/** The brand the emails follow: the design's main colour and the logo (landing page's, else the program's). */
export interface EmailBrand {
  primaryColor: string;
  logoUrl: string | null;
  fontFamily: string;
}

/** The email brand of a completed design and the program's own logo. */
export function emailBrandOf(design: Pick<CampaignDesign, 'theme' | 'landingPages'>, programLogoUrl: string | null | undefined): EmailBrand {
  return { primaryColor: design.theme.primaryColor, logoUrl: design.landingPages.company.logoUrl ?? programLogoUrl ?? null, fontFamily: design.theme.fontFamily };
}

/**
 * The emails' shared settings with their followers filled: `design.primaryColor` the brand's main
 * colour while it is the stock one, `design.logoUrl` the brand's logo while unset. `settings` is not changed.
 */
export function brandEmailSettings<S extends CampaignEmails['settings']>(settings: S, brand: EmailBrand): S {
  const d = settings.design;
  const primaryColor = sameColor(d.primaryColor, STOCK_FOLLOWERS.emailPrimaryColor) ? brand.primaryColor : d.primaryColor;
  const logoUrl = d.logoUrl ?? brand.logoUrl;
  if (primaryColor === d.primaryColor && logoUrl === d.logoUrl) return settings;
  return { ...settings, design: { ...d, primaryColor, logoUrl } };
}

/** The emails document with `brandEmailSettings` applied. */
export function brandEmails<E extends { settings: CampaignEmails['settings'] }>(emails: E, brand: EmailBrand): E {
  const settings = brandEmailSettings(emails.settings, brand);
  return settings === emails.settings ? emails : { ...emails, settings };
}

/** The paths `brandDesign` may fill, for recognising a derived value sent back in a PATCH. */
export const DESIGN_FOLLOWERS = [
  'theme.buttonTextColor',
  'theme.widget.backgroundColor',
  'theme.widget.color',
  'landingPages.styles.accentColor',
  'landingPages.styles.backgroundColor',
  'landingPages.styles.textColor',
  'landingPages.content.headline',
] as const;

/** The paths `brandEmailSettings` may fill. */
export const EMAIL_FOLLOWERS = ['settings.design.primaryColor', 'settings.design.logoUrl'] as const;
