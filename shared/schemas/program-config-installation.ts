// The installation document (rest-v2 §2.21): `campaignInstallation` as stored and
// `campaignInstallationResponse`, its wire shape with unset values omitted.
import { z } from 'zod';
import { httpUrl, nUrl, bool, hostname } from './program-config-fields.ts';

/** A CSS selector of the site's own page (refloop); null = detect. */
const cssSelector = z.string().trim().min(1, 'Cannot be blank.').max(500).nullable();

// ── Installation (§2.21) ────────────────────────────────────────────────────────────────────────

/**
 * The installation document as stored and validated: unset `shareUrl` and `mobile.publicKey` are
 * null here. The wire shape (`campaignInstallationResponse`) omits them instead.
 */
export const campaignInstallation = z
  .strictObject({
    referralTrigger: z.enum(['ON_SIGNUP', 'CUSTOM']).optional().describe('Referral programs only.'),
    signupEvent: z.enum(['FORM_DETECTION', 'PROGRAMMATIC']),
    shareUrl: nUrl(2048).describe('Landing page for referral links; null = the hosted share page.'),
    useGrowSurfHostedLinks: bool,
    allowedUrls: z.array(httpUrl(2048)).max(50).describe('Extra sites where the window and SDK may run.'),
    allowedDomains: z
      .array(hostname)
      .max(50)
      .describe('refloop: host names allowed to embed the window; empty (with empty allowedUrls) = any site.'),
    signup: z.strictObject({
      isCustomForm: bool,
      url: nUrl(2048),
      redirectAfterSignup: bool,
      redirectUrl: nUrl(2048),
      trackInputFields: bool,
      formFields: z
        .strictObject({
          form: cssSelector.describe('The sign-up form; null = any form with an email field.'),
          email: cssSelector.describe('The email field inside it; null = detected (type=email, else a name, id or autocomplete saying email).'),
          firstName: cssSelector.describe('The first-name field; null = detected (autocomplete given-name, or a name or id such as firstName, fname).'),
          lastName: cssSelector.describe('The last-name field; null = detected (autocomplete family-name, or a name or id such as lastName, surname).'),
        })
        .describe(
          'refloop: CSS selectors the attribution script reads the site’s own sign-up form with while signupEvent is FORM_DETECTION. Password fields are never read, whatever a selector says.',
        ),
    }),
    mobile: z.strictObject({
      isEnabled: bool,
      publicKey: z.string().max(64).nullable().describe('Read-only publishable Mobile SDK key, created when the mobile SDK is first enabled.'),
      iosAttributionUrl: nUrl(2048),
      iosAppStoreUrl: nUrl(2048),
      androidPackageName: z
        .string()
        .max(255)
        .regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'Must be a package name such as com.example.app.')
        .nullable(),
      androidAppStoreUrl: nUrl(2048),
    }),
    stripe: z
      .strictObject({
        clientReferenceId: z
          .enum(['AUTO', 'ALWAYS', 'OVERWRITE', 'OFF'])
          .describe(
            'refloop (issue #25): whether the attribution script puts the pending referral code into `client_reference_id` of Stripe Payment Links (`https://buy.stripe.com/…`) and `client-reference-id` of `<stripe-buy-button>` and `<stripe-pricing-table>` on the page. AUTO (default): while the program has an active Stripe connection, only where the merchant set none; ALWAYS: the same without a connection; OVERWRITE: also replacing a value the merchant set; OFF: never.',
          ),
      })
      .describe('refloop: the attribution script and Stripe on the merchant’s pages.'),
  })
  .meta({ description: 'The installation document: shareUrl null = the hosted share page; mobile.publicKey null until the mobile SDK is first enabled.' });

/**
 * `CampaignInstallation` as GET and PATCH answer it (rest-v2 §2.21): `shareUrl` and
 * `mobile.publicKey` are plain strings in the official schemas, so they are omitted while unset
 * rather than sent as null. A PATCH may still send `shareUrl: null` to clear it.
 */
export const campaignInstallationResponse = campaignInstallation
  .extend({
    shareUrl: z.string().max(2048).optional().describe('Landing page for referral links; omitted while unset (the hosted share page is used). PATCH null to clear it.'),
    mobile: campaignInstallation.shape.mobile.extend({
      publicKey: z.string().max(64).optional().describe('Read-only publishable Mobile SDK key; omitted until the mobile SDK is first enabled, kept when it is switched off.'),
    }),
  })
  .meta({ id: 'CampaignInstallation', description: 'The installation tab. shareUrl and mobile.publicKey are omitted while unset, never null.' });

export type CampaignInstallation = z.infer<typeof campaignInstallation>;
