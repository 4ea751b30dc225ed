import { esc } from './html.ts';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../../../shared/scopes.ts';
import { PASSWORD_MAX, PASSWORD_MIN, type Flash, type Invitation, type Member, type Membership, type Session } from '../../domain/owners.ts';
import type { KeySummary } from '../../domain/keys.ts';

// HTML for the owner pages. Every value from the database or the request goes through esc().

const ORIGINS: Record<string, string> = {
  ACCOUNT_CREATION: 'Account creation',
  DASHBOARD: 'Keys page',
  ROTATION: 'Rotation',
  SIGN_IN: 'First sign-in',
  CLI: 'Command line',
};
const ROLES: Record<string, string> = { OWNER: 'Owner', ADMIN: 'Admin', MEMBER: 'Member' };

/** An error message that screen readers announce as soon as the page loads; empty when there is none. */
export function alertBox(message: string | null | undefined): string {
  return message ? `<p class="error" role="alert">${esc(message)}</p>` : '';
}

/** A confirmation announced politely; empty when there is none. */
export function noticeBox(message: string | null | undefined): string {
  return message ? `<p class="notice" role="status">${esc(message)}</p>` : '';
}

function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${esc(csrf)}">`;
}

function time(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${esc(iso)}">${esc(iso.slice(0, 16).replace('T', ' '))} UTC</time>`;
}

function passwordFields(): string {
  const rules = `At least ${PASSWORD_MIN} and at most ${PASSWORD_MAX} characters.`;
  return `<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" required aria-describedby="password-rules">
<p id="password-rules">${esc(rules)}</p>
<label for="confirm">Repeat the new password</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" required>`;
}

/** The header of every signed-in page: who, which team, navigation and sign-out. */
export function chrome(session: Session, teamName: string | null, current: string): string {
  const link = (href: string, text: string) => `<li><a href="${href}"${href === current ? ' aria-current="page"' : ''}>${text}</a></li>`;
  return `<header>
<p>Signed in as <strong>${esc(session.email)}</strong>${teamName ? ` · team <strong>${esc(teamName)}</strong>` : ''}</p>
<nav aria-label="Owner pages"><ul>${link('/keys', 'API keys')}${link('/team/members', 'Team members')}${link('/signin/team', 'Switch team')}</ul></nav>
<form method="post" action="/signout">${csrfField(session.csrf)}<button type="submit">Sign out</button></form>
</header>`;
}

/** The one-time message: new key secrets (shown exactly once) and notices. */
export function flashView(flash: Flash | null): string {
  if (!flash) return '';
  const keys = flash.keys.map(
    (k, i) => `<section class="notice" role="status" aria-labelledby="new-key-${i}-title">
<h2 id="new-key-${i}-title">New API key for team ${esc(k.teamName)}</h2>
<p>Copy this key now and keep it somewhere safe: it is shown only this once.${k.replacedPrefix ? ` It replaces the account creation key <code>${esc(k.replacedPrefix)}…</code>, which no longer works.` : ''}</p>
<code class="secret" id="new-key-${i}">${esc(k.secret)}</code>
</section>`,
  );
  return keys.join('\n') + noticeBox(flash.notice);
}

/** `/set-password`: choose the password for signing in. */
export function setPasswordView(token: string, email: string, error?: string): string {
  return `<h1>Choose your password</h1>
<p>You will sign in to the owner pages as <strong>${esc(email)}</strong>.</p>
${alertBox(error)}
<form method="post" action="/set-password?token=${esc(encodeURIComponent(token))}">
${passwordFields()}
<button type="submit">Set password</button>
</form>`;
}

/** A one-time link that is unknown, used or expired. */
export function invalidLinkView(what: string, remedy: string): string {
  return `<h1>This ${esc(what)} link is not valid</h1>
<p class="error" role="alert">The link is unknown, already used or expired. ${esc(remedy)}</p>
<p><a href="/signin">Go to sign-in</a></p>`;
}

/** The hidden double-submit token of the forms that have no session yet (form-source.ts). */
function formTokenField(token: string): string {
  return `<input type="hidden" name="form" value="${esc(token)}">`;
}

/**
 * `/signin`, and the same form on the OAuth consent page (`consent`: posted there with the
 * sealed authorization request, so the owner comes back to it afterwards).
 */
export function signInView(email: string, formToken: string, error?: string | null, notice?: string | null, consent?: { action: string; request: string }): string {
  return `<h1>Sign in</h1>
${noticeBox(notice)}${alertBox(error)}
<form method="post" action="${consent ? esc(consent.action) : '/signin'}">
${formTokenField(formToken)}${consent ? `<input type="hidden" name="action" value="signin"><input type="hidden" name="request" value="${esc(consent.request)}">` : ''}
<label for="email">Email address</label>
<input type="email" id="email" name="email" autocomplete="username" maxlength="254" required value="${esc(email)}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" maxlength="${PASSWORD_MAX}" required>
<button type="submit">Sign in</button>
</form>
<p>No password yet? Use the “choose a password” link from your welcome email.</p>
<p>New here? <a href="/signup">Create an account</a>.</p>`;
}

/** What the sign-up form had, so a refused submission keeps it. */
export interface SignUpValues {
  email: string;
  firstName: string;
  lastName: string;
  company: string;
}

/** `/signup`: A0 `POST /accounts` as a form. */
export function signUpView(formToken: string, error?: string | null, values?: SignUpValues): string {
  const v = values ?? { email: '', firstName: '', lastName: '', company: '' };
  return `<h1>Create an account</h1>
<p>Start a 14-day trial. Use your work email address: free-mail and disposable addresses are not accepted.</p>
${alertBox(error)}
<form method="post" action="/signup">
${formTokenField(formToken)}
<label for="email">Work email address</label>
<input type="email" id="email" name="email" autocomplete="email" maxlength="254" required value="${esc(v.email)}">
<label for="first-name">First name (optional)</label>
<input type="text" id="first-name" name="firstName" autocomplete="given-name" maxlength="255" value="${esc(v.firstName)}">
<label for="last-name">Last name (optional)</label>
<input type="text" id="last-name" name="lastName" autocomplete="family-name" maxlength="255" value="${esc(v.lastName)}">
<label for="company">Company (optional; it names your team)</label>
<input type="text" id="company" name="company" autocomplete="organization" maxlength="255" value="${esc(v.company)}">
<div><input type="checkbox" id="terms" name="terms" value="on" required>
<label for="terms" style="display:inline">I accept the terms of service and the privacy policy.</label></div>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/signin">Sign in</a>.</p>`;
}

/** After sign-up: where the two links went. */
export function signUpDoneView(email: string, outbox: boolean): string {
  return `<h1>Check your email</h1>
<p class="notice" role="status">We sent a welcome email to <strong>${esc(email)}</strong>.</p>
<ol>
<li>Open its first link to verify your address.</li>
<li>Open its second link to choose your password.</li>
<li>Sign in. Your API key is shown once, on the first page after your first sign-in.</li>
</ol>
${outbox ? '<p>This server sends no mail (no <code>SMTP_URL</code>): read the message in the <a href="/_dev/mail">mail outbox</a>.</p>' : ''}
<p>The account is deleted after 7 days if the address is not verified.</p>`;
}

/** `/signin/team`: which team to work in. */
export function teamPickerView(teams: Membership[], csrf: string, currentTeamId: string | null, error?: string): string {
  if (teams.length === 0) return `<h1>No team</h1><p class="error" role="alert">You are not a member of any team. Ask a team Owner or Admin to invite you.</p>`;
  const options = teams
    .map(
      (t, i) => `<div><input type="radio" id="team-${i}" name="teamId" value="${esc(t.teamId)}"${t.teamId === currentTeamId || (!currentTeamId && i === 0) ? ' checked' : ''} required>
<label for="team-${i}" style="display:inline">${esc(t.teamName)} <span>(${esc(ROLES[t.role] ?? t.role)})</span></label></div>`,
    )
    .join('\n');
  return `<h1>Choose a team</h1>
${alertBox(error)}
<form method="post" action="/signin/team">
${csrfField(csrf)}
<fieldset><legend>Teams you belong to</legend>
${options}
</fieldset>
<button type="submit">Continue</button>
</form>`;
}

/** What the create-key form had, so a rejected submission keeps the user's choices. */
export interface KeyFormValues {
  scopes: string[];
  programIds: string;
  label: string;
}

/** `/keys`: the team's active keys by prefix, the create form and revoke buttons. */
export function keysView(teamName: string, keys: KeySummary[], csrf: string, error?: string | null, values?: KeyFormValues): string {
  const rows = keys
    .map(
      (k) => `<tr>
<td><code>${esc(k.prefix)}…</code></td>
<td>${esc(k.label ?? '')}</td>
<td>${k.scopes.length === SCOPES.length ? 'All scopes' : k.scopes.map((s) => `<code>${esc(s)}</code>`).join(', ')}</td>
<td>${k.programIds ? k.programIds.map((p) => `<code>${esc(p)}</code>`).join(', ') : 'All programs'}</td>
<td>${esc(ORIGINS[k.origin] ?? k.origin)}</td>
<td>${time(k.createdAt)}</td>
<td><form method="post" action="/keys/revoke">${csrfField(csrf)}<input type="hidden" name="prefix" value="${esc(k.prefix)}"><button type="submit">Revoke ${esc(k.prefix)}…</button></form></td>
</tr>`,
    )
    .join('\n');
  const table = keys.length
    ? `<table><caption>Active API keys of ${esc(teamName)}</caption>
<thead><tr><th scope="col">Key starts with</th><th scope="col">Label</th><th scope="col">Scopes</th><th scope="col">Programs</th><th scope="col">Origin</th><th scope="col">Created</th><th scope="col">Action</th></tr></thead>
<tbody>${rows}</tbody></table>`
    : '<p>This team has no active API keys.</p>';
  const chosen = new Set(values?.scopes ?? []);
  const scopeBoxes = SCOPES.map(
    (s, i) => `<div><input type="checkbox" id="scope-${i}" name="scopes" value="${esc(s)}"${chosen.has(s) ? ' checked' : ''} aria-describedby="scope-${i}-desc">
<label for="scope-${i}" style="display:inline"><code>${esc(s)}</code></label> <span id="scope-${i}-desc">${esc(SCOPE_DESCRIPTIONS[s])}</span></div>`,
  ).join('\n');
  return `<h1>API keys</h1>
<p>Keys are stored only as a hash: this page shows the first characters of each key, never the key itself.</p>
${alertBox(error)}
${table}
<h2>Create a key</h2>
<form method="post" action="/keys">
${csrfField(csrf)}
<fieldset><legend>Scopes (what the key may do)</legend>
${scopeBoxes}
</fieldset>
<label for="program-ids">Limit to programs (optional)</label>
<input type="text" id="program-ids" name="programIds" maxlength="4000" aria-describedby="program-ids-help" value="${esc(values?.programIds ?? '')}">
<p id="program-ids-help">Comma-separated program ids. Leave empty to allow every program.</p>
<label for="key-label">Label (optional)</label>
<input type="text" id="key-label" name="label" maxlength="100" value="${esc(values?.label ?? '')}">
<button type="submit">Create key</button>
</form>`;
}

/** `/team/members`: who is in the team and, for Owners and Admins, the invite form. */
export function membersView(teamName: string, members: Member[], csrf: string, mayInvite: boolean, error?: string | null, values?: { email: string; role: string; manageApi: boolean }): string {
  const rows = members
    .map((m) => `<tr><td>${esc(m.email)}</td><td>${esc(ROLES[m.role] ?? m.role)}</td><td>${m.role === 'MEMBER' ? (m.manageApi ? 'Yes' : 'No') : 'Yes'}</td><td>${time(m.joinedAt)}</td></tr>`)
    .join('\n');
  const role = values?.role ?? 'MEMBER';
  const form = mayInvite
    ? `<h2>Invite a teammate</h2>
${alertBox(error)}
<form method="post" action="/team/members/invite">
${csrfField(csrf)}
<label for="invite-email">Email address</label>
<input type="email" id="invite-email" name="email" autocomplete="off" maxlength="254" required value="${esc(values?.email ?? '')}">
<label for="invite-role">Role</label>
<select id="invite-role" name="role">
<option value="MEMBER"${role === 'MEMBER' ? ' selected' : ''}>Member</option>
<option value="ADMIN"${role === 'ADMIN' ? ' selected' : ''}>Admin (manages keys and invites teammates)</option>
</select>
<div><input type="checkbox" id="invite-manage-api" name="manageApi" value="on"${values?.manageApi ? ' checked' : ''}>
<label for="invite-manage-api" style="display:inline">Manage API (a Member may create, list and revoke API keys)</label></div>
<button type="submit">Send invitation</button>
</form>`
    : alertBox(error) + '<p>Only Owners and Admins can invite teammates.</p>';
  return `<h1>Team members</h1>
<table><caption>Members of ${esc(teamName)}</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Manages API keys</th><th scope="col">Joined</th></tr></thead>
<tbody>${rows}</tbody></table>
${form}`;
}

/** `/invite/accept`: join the team, choosing a password when the address has none yet. */
export function inviteView(token: string, inv: Invitation, error?: string): string {
  return `<h1>Join ${esc(inv.teamName)}</h1>
<p>You are invited as ${inv.role === 'ADMIN' ? 'an Admin' : 'a Member'}${inv.manageApi && inv.role === 'MEMBER' ? ' who may manage API keys' : ''}, signing in as <strong>${esc(inv.email)}</strong>.</p>
${alertBox(error)}
<form method="post" action="/invite/accept?token=${esc(encodeURIComponent(token))}">
${inv.needsPassword ? passwordFields() : '<p>You already have an account: accept, then sign in with your password.</p>'}
<button type="submit">Join the team</button>
</form>`;
}

/** A short page for refusals (403) and other dead ends. */
export function messageView(heading: string, message: string, link: { href: string; text: string } | null = { href: '/signin', text: 'Go to sign-in' }): string {
  return `<h1>${esc(heading)}</h1>${alertBox(message)}${link ? `<p><a href="${esc(link.href)}">${esc(link.text)}</a></p>` : ''}`;
}
