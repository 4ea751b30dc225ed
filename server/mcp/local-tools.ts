import crypto from 'node:crypto';
import { autoAuthHash } from '../domain/participant-api/participant-tokens.ts';
import { INTEGRATIONS } from '../../shared/schemas/program-config-integrations.ts';
import { ValidationError } from '../errors.ts';
import type { JsonSchema, ToolContext, ToolDef } from './tool-kit.ts';

// The tools of mcp.md §2 that call nothing (1–4, 47–52): markdown and values built here, no credential.

/** A local tool and where the reference lists it (before or after the REST tools). */
export type LocalTool = ToolDef & { position: 'start' | 'end' };

const MARKDOWN_OUT: JsonSchema = { type: 'object', properties: { markdown: { type: 'string' } } };
const ELEMENTS = ['form', 'invite', 'rewards', 'referral_status', 'referral_summary', 'affiliate_summary', 'commissions', 'payouts'] as const;
const EVENTS = ['PARTICIPANT_REACHED_A_GOAL', 'NEW_PARTICIPANT_ADDED', 'CAMPAIGN_ENDED', 'PARTICIPANT_FRAUD_STATUS_UPDATED', 'NEW_COMMISSION_ADDED', 'COMMISSION_ADJUSTED', 'NEW_PAYOUT_ISSUED'];

function str(args: Record<string, unknown>, field: string, opts: { required?: boolean; max?: number } = {}): string | undefined {
  const v = args[field];
  if (v === undefined || v === null || v === '') {
    if (opts.required) throw new ValidationError(`${field} is required.`, [{ field, code: 'REQUIRED', message: 'Required.' }]);
    return undefined;
  }
  if (typeof v !== 'string' || v.length > (opts.max ?? 1000)) throw new ValidationError(`${field} must be a string of at most ${opts.max ?? 1000} characters.`, [{ field, code: 'INVALID', message: 'Invalid value.' }]);
  return v;
}

function md(name: string, title: string, description: string, position: 'start' | 'end', properties: Record<string, unknown>, build: (args: Record<string, unknown>, ctx: ToolContext) => string): LocalTool {
  return {
    name,
    title,
    description,
    scopes: [],
    profile: 'READ',
    position,
    inputSchema: { type: 'object', properties },
    outputSchema: MARKDOWN_OUT,
    run: async (args, ctx) => ({ markdown: build(args, ctx) }),
    text: (r) => String(r.markdown),
  };
}

const universalCode = (base: string, id: string) => `<script type="text/javascript">
(function(g,r,s,f){g.grsfSettings={campaignId:"${id}",version:"2.0.0"};s=r.getElementsByTagName("head")[0];f=r.createElement("script");f.async=1;f.src="${base}/growsurf.js"+"?v="+g.grsfSettings.version;f.setAttribute("grsf-campaign",g.grsfSettings.campaignId);!g.grsfInit?s.appendChild(f):"";})(window,document);
</script>`;

const campaignArg = { campaignId: { type: 'string', maxLength: 64, description: 'Program id to put in the snippet (placeholder when absent).' } };

/** The local tools, built per process. */
export function localTools(): LocalTool[] {
  return [
    md(
      'growsurf_integration_guide',
      'Integration guide',
      'Markdown integration plan: referral, affiliate or both; authentication, referral trigger, single-page apps, webhook security.',
      'start',
      { programType: { type: 'string', enum: ['referral', 'affiliate', 'both'] } },
      (args, { deps }) => {
        const type = str(args, 'programType', { max: 16 }) ?? 'both';
        if (!['referral', 'affiliate', 'both'].includes(type)) throw new ValidationError('programType must be referral, affiliate or both.', [{ field: 'programType', code: 'INVALID_VALUE', message: 'referral | affiliate | both' }]);
        const api = `${deps.config.publicUrl}/v2`;
        const parts = [
          `# Integration plan (${type})`,
          `1. **Create the program** with \`growsurf_create_campaign\` (type ${type === 'affiliate' ? 'AFFILIATE' : type === 'referral' ? 'REFERRAL' : 'REFERRAL and/or AFFILIATE'}); it starts DRAFT.`,
          '2. **Rewards**: add reward configurations (`growsurf_create_campaign_reward`) before publishing.',
          '3. **Install the Universal Code** in `<head>` on every page, exactly once (`growsurf_grsf_config_snippet`).',
          '4. **Add participants** at sign-up: `growsurf.addParticipant({ email })` in the page, or `growsurf_add_participant` / `POST ' + api + '/campaign/{id}/participant` from your backend.',
          '5. **Authentication**: sign participants in automatically with `window.grsfConfig = { email, hash }`, where `hash` is the HMAC-SHA256 hex of the email keyed with the program’s participant auth secret — compute it on the server, never in the browser.',
        ];
        if (type !== 'affiliate') parts.push('6. **Trigger referral credit** from your backend when the referred friend qualifies (`growsurf_trigger_referral`, `POST /v2/campaign/{id}/participant/{p}/ref`, optionally delayed 1–90 days).');
        if (type !== 'referral') parts.push('6. **Affiliate sales** are recorded from your backend with the transaction endpoint once it is available on this server.');
        parts.push(
          '7. **Single-page apps**: call `growsurf.init()` after the signed-in user changes and `growsurf.initElements()` after rendering `data-grsf-block-*` elements; wait for `grsfReady` before any `growsurf.*` call.',
          '8. **Webhooks**: subscribe with `growsurf_create_campaign_webhook`, set a `secret`, verify the `GrowSurf-Signature` header (HMAC-SHA256 over `t.body`), drop duplicates by `GrowSurf-Delivery-Id`.',
          '9. **Publish** with `growsurf_update_campaign` status `IN_PROGRESS`.',
        );
        return parts.join('\n');
      },
    ),
    md('growsurf_agent_program_creation_eval', 'Program creation eval', 'Markdown eval prompts and acceptance checks for creating a program in one shot.', 'start', {}, () =>
      [
        '# One-shot program creation: eval',
        '## Prompts',
        '- “Create a referral program for Acme that gives both sides $10 credit when a friend subscribes.”',
        '- “Set up an affiliate program paying 20% of each sale for 12 months.”',
        '## Acceptance checks',
        '1. Exactly one new program exists (`growsurf_list_campaigns`), type matches the prompt, status `DRAFT` until the owner asks to publish.',
        '2. Reward configurations match the prompt: type (`DOUBLE_SIDED`, `AFFILIATE` …), amounts in integer minor units with the program currency.',
        '3. No participant, webhook or email was created or sent unless the prompt asked for it.',
        '4. The agent reports the program id and the next steps (install the Universal Code, trigger referrals from the backend).',
      ].join('\n'),
    ),
    md('growsurf_mobile_sdk_guide', 'Mobile SDK guide', 'Markdown guide to the native iOS/Android SDK 0.3.3 against this server’s participant API.', 'start', {}, (_a, { deps }) =>
      [
        '# Native SDK (iOS / Android, 0.3.3)',
        `- The SDK talks to the participant API at \`${deps.config.publicUrl}/mobile/v2\` with the program’s public key and a session token it creates itself.`,
        '- Your backend creates the participant and its **mobile participant token** (`growsurf_create_mobile_participant_token` or `POST /v2/campaign/{id}/mobile-participant-token`) and hands the token to the app; never ship the REST API key in an app.',
        '- Pass the token to the SDK’s identify call; refresh it when it expires (`expiresIn`).',
        '- Referral credit for server-verified purchases is triggered from your backend (`growsurf_trigger_referral`).',
      ].join('\n'),
    ),
    md(
      'growsurf_api_library_snippets',
      'REST snippets',
      'Markdown REST snippets (TypeScript, Python, PHP, Ruby, Java), including the raw mobile participant token call.',
      'start',
      { language: { type: 'string', enum: ['typescript', 'python', 'php', 'ruby', 'java'] } },
      (args, { deps }) => {
        const api = `${deps.config.publicUrl}/v2`;
        const lang = str(args, 'language', { max: 16 });
        const all: Record<string, string> = {
          typescript: `\`\`\`ts\nconst res = await fetch('${api}/campaign/' + campaignId + '/mobile-participant-token', {\n  method: 'POST',\n  headers: { Authorization: 'Bearer ' + process.env.REFLOOP_API_KEY, 'Content-Type': 'application/json' },\n  body: JSON.stringify({ email }),\n});\nconst { participantToken } = await res.json();\n\`\`\``,
          python: `\`\`\`python\nimport os, requests\nr = requests.post(f"${api}/campaign/{campaign_id}/mobile-participant-token",\n    headers={"Authorization": f"Bearer {os.environ['REFLOOP_API_KEY']}"}, json={"email": email})\ntoken = r.json()["participantToken"]\n\`\`\``,
          php: `\`\`\`php\n$ch = curl_init("${api}/campaign/$campaignId/mobile-participant-token");\ncurl_setopt_array($ch, [CURLOPT_POST => true, CURLOPT_RETURNTRANSFER => true,\n  CURLOPT_HTTPHEADER => ['Authorization: Bearer ' . getenv('REFLOOP_API_KEY'), 'Content-Type: application/json'],\n  CURLOPT_POSTFIELDS => json_encode(['email' => $email])]);\n$token = json_decode(curl_exec($ch), true)['participantToken'];\n\`\`\``,
          ruby: `\`\`\`ruby\nrequire "net/http"; require "json"\nuri = URI("${api}/campaign/#{campaign_id}/mobile-participant-token")\nres = Net::HTTP.post(uri, { email: email }.to_json, "Authorization" => "Bearer #{ENV['REFLOOP_API_KEY']}", "Content-Type" => "application/json")\ntoken = JSON.parse(res.body)["participantToken"]\n\`\`\``,
          java: `\`\`\`java\nvar req = HttpRequest.newBuilder(URI.create("${api}/campaign/" + campaignId + "/mobile-participant-token"))\n  .header("Authorization", "Bearer " + System.getenv("REFLOOP_API_KEY")).header("Content-Type", "application/json")\n  .POST(HttpRequest.BodyPublishers.ofString("{\\"email\\":\\"" + email + "\\"}")).build();\nvar body = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString()).body();\n\`\`\``,
        };
        if (lang && !all[lang]) throw new ValidationError('Unknown language.', [{ field: 'language', code: 'INVALID_VALUE', message: Object.keys(all).join(' | ') }]);
        const chosen = lang ? { [lang]: all[lang]! } : all;
        return ['# REST snippets', 'Send `Authorization: Bearer <API_KEY>` from your server only.', ...Object.entries(chosen).map(([k, v]) => `## ${k}\n${v}`)].join('\n\n');
      },
    ),
    {
      name: 'growsurf_participant_auth_hash',
      title: 'Participant auth hash',
      description: 'HMAC-SHA256 hex of the email keyed with the program’s participant auth secret (for window.grsfConfig / growsurf.init). The email is used exactly as the page will send it.',
      scopes: [],
      profile: 'READ',
      position: 'end',
      inputSchema: {
        type: 'object',
        properties: { email: { type: 'string', minLength: 3, maxLength: 254 }, participantAuthSecret: { type: 'string', minLength: 1, maxLength: 200 } },
        required: ['email', 'participantAuthSecret'],
      },
      outputSchema: { type: 'object', properties: { hash: { type: 'string' } } },
      run: async (args) => ({ hash: autoAuthHash(str(args, 'participantAuthSecret', { required: true, max: 200 })!, str(args, 'email', { required: true, max: 254 })!) }),
    },
    {
      name: 'growsurf_webhook_normalize',
      title: 'Normalize a webhook delivery',
      description: 'Validate a webhook envelope ({ event, createdAt, data }) and build an idempotency key (the GrowSurf-Delivery-Id when given).',
      scopes: [],
      profile: 'READ',
      position: 'end',
      inputSchema: {
        type: 'object',
        properties: { payload: { description: 'The delivery body, as an object or the raw JSON text.' }, deliveryId: { type: 'string', maxLength: 128 } },
        required: ['payload'],
      },
      outputSchema: { type: 'object', properties: { valid: { type: 'boolean' }, event: { type: 'string' }, createdAt: { type: 'integer' }, campaignId: { type: 'string' }, participantId: { type: 'string' }, idempotencyKey: { type: 'string' }, problems: { type: 'array', items: { type: 'string' } } } },
      run: async (args) => {
        let p = args.payload;
        const problems: string[] = [];
        if (typeof p === 'string') {
          if (p.length > 1_000_000) throw new ValidationError('payload is larger than 1 MB.');
          try {
            p = JSON.parse(p);
          } catch {
            problems.push('payload is not valid JSON');
          }
        }
        const env = p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
        if (!problems.length && env !== p) problems.push('payload must be a JSON object');
        const event = typeof env.event === 'string' ? env.event : undefined;
        if (!event || !EVENTS.includes(event)) problems.push(`event must be one of ${EVENTS.join(', ')}`);
        const createdAt = Number.isSafeInteger(env.createdAt) ? (env.createdAt as number) : undefined;
        if (createdAt === undefined) problems.push('createdAt must be an integer (epoch milliseconds)');
        const data = env.data && typeof env.data === 'object' ? (env.data as Record<string, any>) : undefined;
        if (!data) problems.push('data must be an object');
        const campaignId = typeof data?.campaign?.id === 'string' ? data.campaign.id : undefined;
        const participantId = typeof data?.participant?.id === 'string' ? data.participant.id : undefined;
        const deliveryId = str(args, 'deliveryId', { max: 128 });
        const basis = [event, createdAt, campaignId, participantId, data?.reward?.id, data?.commission?.id, data?.payout?.id].map((v) => v ?? '').join('|');
        const idempotencyKey = deliveryId ?? `wh_${crypto.createHash('sha256').update(basis).digest('hex').slice(0, 32)}`;
        const out: Record<string, unknown> = { valid: problems.length === 0, idempotencyKey, problems };
        if (event) out.event = event;
        if (createdAt !== undefined) out.createdAt = createdAt;
        if (campaignId) out.campaignId = campaignId;
        if (participantId) out.participantId = participantId;
        return out;
      },
    },
    md('growsurf_client_snippets', 'Web snippets', 'Markdown web JavaScript snippets: tracking, the Window, the notifications badge, embeddable elements and events.', 'end', campaignArg, (args, { deps }) => {
      const id = str(args, 'campaignId', { max: 64 }) ?? '<PROGRAM_ID>';
      return [
        '# Web snippets',
        `## Universal Code (in <head>, every page, once)\n\`\`\`html\n${universalCode(deps.config.publicUrl, id)}\n\`\`\``,
        "## Wait for the SDK\n```js\ndocument.addEventListener('grsfReady', () => { /* growsurf.* calls here */ });\n```",
        "## Add the signed-up user\n```js\nawait growsurf.addParticipant({ email, firstName, lastName });\n```",
        '## Open the Window from your button\n```js\ndocument.querySelector(\'#refer\').addEventListener(\'click\', () => growsurf.open());\n```',
        "## Unread notifications badge\n```js\ngrowsurf.initUnreadNotificationsBadge('.my-button');\n```",
        "## Events\n```js\ngrowsurf.subscribe('referral', (data) => console.log(data));\n```",
        '## Embedded form\n```html\n<div data-grsf-block-form></div>\n```',
      ].join('\n\n');
    }),
    md(
      'growsurf_embeddable_element_snippet',
      'Embeddable element',
      'Markdown for one data-grsf-block-* element, optionally with participant attributes.',
      'end',
      {
        element: { type: 'string', enum: [...ELEMENTS] },
        withAuthAttributes: { type: 'boolean' },
        participant: { type: 'object', properties: { email: { type: 'string', maxLength: 254 }, firstName: { type: 'string', maxLength: 255 }, lastName: { type: 'string', maxLength: 255 } } },
      },
      (args) => {
        const element = str(args, 'element', { required: true, max: 32 })!;
        if (!(ELEMENTS as readonly string[]).includes(element)) throw new ValidationError('Unknown element.', [{ field: 'element', code: 'INVALID_VALUE', message: ELEMENTS.join(' | ') }]);
        const attr = `data-grsf-block-${element.replace(/_/g, '-')}`;
        const person = (args.participant && typeof args.participant === 'object' ? args.participant : {}) as Record<string, unknown>;
        const esc = (v: unknown) => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
        const extra = args.withAuthAttributes === true ? ['email', 'firstName', 'lastName'].filter((k) => typeof person[k] === 'string').map((k) => ` data-grsf-${k.toLowerCase()}="${esc(person[k])}"`).join('') : '';
        return `# ${element}\nPlace it where the element should render; the Universal Code must be on the page. Call \`growsurf.initElements()\` after changing attributes.\n\`\`\`html\n<div ${attr}${extra}></div>\n\`\`\``;
      },
    ),
    md('growsurf_grsf_config_snippet', 'Head snippet', 'Markdown <head> snippet with window.grsfConfig (participant auto-authentication) and the Universal Code.', 'end', campaignArg, (args, { deps }) => {
      const id = str(args, 'campaignId', { max: 64 }) ?? '<PROGRAM_ID>';
      return `# <head> snippet\nRender the email and its hash on the server (\`growsurf_participant_auth_hash\`); leave the block out for signed-out visitors.\n\`\`\`html\n<script>\n  window.grsfConfig = { email: "<EMAIL>", hash: "<HMAC_SHA256_HEX>" };\n</script>\n${universalCode(deps.config.publicUrl, id)}\n\`\`\``;
    }),
    {
      name: 'growsurf_get_integration_connect_link',
      title: 'Integration connect link',
      description: 'Where one integration is connected: for Stripe, the console page; other keys are not provided by refloop.',
      scopes: [],
      profile: 'READ',
      position: 'end',
      inputSchema: { type: 'object', properties: { integration: { type: 'string', enum: INTEGRATIONS.map((i) => i.id) }, campaignId: { type: 'string', maxLength: 64 } }, required: ['integration'] },
      outputSchema: { type: 'object', properties: { integration: { type: 'string' }, label: { type: 'string' }, category: { type: 'string' }, referralOnly: { type: 'boolean' }, url: { type: 'string' }, note: { type: 'string' } } },
      run: async (args, { deps }) => {
        const key = str(args, 'integration', { required: true, max: 64 })!;
        const found = INTEGRATIONS.find((i) => i.id === key);
        if (!found) throw new ValidationError('Unknown integration key (exact case).', [{ field: 'integration', code: 'INVALID_VALUE', message: 'One of the registry keys.' }]);
        const id = str(args, 'campaignId', { max: 64 }) ?? '<PROGRAM_ID>';
        return {
          integration: found.id,
          label: found.name,
          category: found.only === 'AFFILIATE' ? 'affiliate' : found.only === 'REFERRAL' ? 'referral' : 'any',
          referralOnly: found.only === 'REFERRAL',
          // refloop provides Stripe only (issue #25): its REST extension; any other key, the honest I1 list.
          url:
            found.id === 'stripe'
              ? `${deps.config.publicUrl}/console/programs/${encodeURIComponent(id)}/integrations/stripe`
              : `${deps.config.publicUrl}/v2/campaign/${encodeURIComponent(id)}/integrations`,
          note:
            found.id === 'stripe'
              ? 'The console page where the owner connects Stripe with the webhook signing secret (or POST /v2/campaign/{id}/integrations/stripe, program:write); docs/integrations.md.'
              : `refloop does not provide the ${found.name} integration; the URL lists the integrations it does provide.`,
        };
      },
    },
  ];
}
