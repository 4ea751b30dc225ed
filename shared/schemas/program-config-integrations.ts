// The integrations list (rest-v2 §2.22): the integration keys in dashboard order and the
// `Integration` and list response schemas.
import { z } from 'zod';
import type { ConfigProgramType } from './program-config-fields.ts';

// ── Integrations (§2.22) ────────────────────────────────────────────────────────────────────────

/** Integration keys in dashboard order with display names; `only` marks type-specific ones (§4, §3.6). */
export const INTEGRATIONS: ReadonlyArray<{ id: string; name: string; only?: ConfigProgramType }> = [
  { id: 'stripe', name: 'Stripe' },
  { id: 'chargebee', name: 'Chargebee', only: 'REFERRAL' },
  { id: 'recurly', name: 'Recurly', only: 'REFERRAL' },
  { id: 'paypal', name: 'PayPal' },
  { id: 'wisecom', name: 'Wise', only: 'AFFILIATE' },
  { id: 'tangocard', name: 'Tango Card', only: 'REFERRAL' },
  { id: 'hubspot', name: 'HubSpot' },
  { id: 'salesforce', name: 'Salesforce' },
  { id: 'marketo', name: 'Marketo' },
  { id: 'mailchimp', name: 'Mailchimp' },
  { id: 'activecampaign', name: 'ActiveCampaign' },
  { id: 'bentonow', name: 'Bento' },
  { id: 'mailerlite', name: 'MailerLite' },
  { id: 'resenddotcom', name: 'Resend' },
  { id: 'loopsdotso', name: 'Loops' },
  { id: 'convertkit', name: 'Kit (ConvertKit)' },
  { id: 'constantContact', name: 'Constant Contact' },
  { id: 'campaignMonitor', name: 'Campaign Monitor' },
  { id: 'aweber', name: 'AWeber' },
  { id: 'klaviyo', name: 'Klaviyo' },
  { id: 'mailjet', name: 'Mailjet' },
  { id: 'sendgrid', name: 'SendGrid' },
  { id: 'sendinblue', name: 'Brevo (Sendinblue)' },
  { id: 'emailoctopus', name: 'EmailOctopus' },
  { id: 'customerio', name: 'Customer.io' },
  { id: 'getresponse', name: 'GetResponse' },
  { id: 'drip', name: 'Drip' },
  { id: 'googleanalytics', name: 'Google Analytics' },
  { id: 'segmentanalytics', name: 'Segment' },
  { id: 'posthoganalytics', name: 'PostHog' },
  { id: 'mixpanelanalytics', name: 'Mixpanel' },
  { id: 'pendo', name: 'Pendo' },
  { id: 'fullstory', name: 'FullStory' },
  { id: 'heapanalytics', name: 'Heap' },
  { id: 'amplitude', name: 'Amplitude' },
  { id: 'googleads', name: 'Google Ads' },
  { id: 'metaads', name: 'Meta Ads' },
  { id: 'linkedinads', name: 'LinkedIn Ads' },
  { id: 'twitterads', name: 'X (Twitter) Ads' },
  { id: 'slack', name: 'Slack' },
  { id: 'intercom', name: 'Intercom' },
  { id: 'helpScout', name: 'Help Scout' },
  { id: 'zapier', name: 'Zapier' },
  { id: 'integromat', name: 'Make (Integromat)' },
  { id: 'pabblyConnect', name: 'Pabbly Connect' },
  { id: 'webhook', name: 'Webhooks' },
  { id: 'baskHealth', name: 'Bask Health' },
];

/** `Integration` (§2.22). */
export const integration = z
  .object({
    id: z.string().describe('Stable integration key, identical to the dashboard’s key.'),
    name: z.string(),
    connected: z.boolean(),
    enabled: z.boolean(),
    autoDisabled: z.boolean(),
    connectUrl: z.string(),
  })
  .meta({ id: 'Integration' });

/** `GET /campaign/{id}/integrations` response. */
export const integrationList = z.object({ integrations: z.array(integration) }).meta({ id: 'IntegrationListResponse' });

export type Integration = z.infer<typeof integration>;
