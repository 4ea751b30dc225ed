import { esc, markup, message } from './html.ts';
import { ownerMessages, t, type OwnerKey } from './i18n/index.ts';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../../../shared/scopes.ts';
import { PASSWORD_MAX, PASSWORD_MIN, type Flash, type Invitation, type Member, type Membership, type Session } from '../../domain/platform/owners.ts';
import type { KeySummary } from '../../domain/platform/keys.ts';

// HTML for the owner pages. Every value from the database or the request goes through esc(); every
// word comes from the owner pages' catalogue (./i18n), escaped as it is rendered (`h`).

/** A catalogue message as escaped HTML (html.ts `message`). */
const h = (key: OwnerKey, vars?: Parameters<typeof message>[2]) => message(t, key, vars);
/** A catalogue message as escaped HTML for a key built from a value (a role, a key's origin); the value itself when the catalogue has no such key. */
function named(key: string, value: string): string {
  return Object.hasOwn(ownerMessages, key) ? h(key as OwnerKey) : esc(value);
}

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
  return `<label for="password">${h('password.new')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" required aria-describedby="password-rules">
<p id="password-rules">${h('password.rules', { min: String(PASSWORD_MIN), max: String(PASSWORD_MAX) })}</p>
<label for="confirm">${h('password.repeat')}</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" required>`;
}

/** The header of every signed-in page: who, which team, the console's navigation and sign-out (the console's own frame, issue #23). */
export function chrome(session: Session, teamName: string | null, current: string): string {
  const link = (href: string, text: OwnerKey) => `<li><a href="${href}"${href === current ? ' aria-current="page"' : ''}>${h(text)}</a></li>`;
  const strong = (v: string) => markup(`<strong>${esc(v)}</strong>`);
  return `<a class="skip" href="#main">${h('app.skip')}</a>
<header class="top">
<a class="brand" href="/console">${h('app.name')}</a>
<p class="who">${h('app.signedInAs', { email: strong(session.email) })}${teamName ? ` · ${h('chrome.team', { name: strong(teamName) })}` : ''}</p>
<div class="account"><form method="post" action="/signout">${csrfField(session.csrf)}<button type="submit">${h('app.signOut')}</button></form></div>
</header>
<nav aria-label="${h('chrome.nav')}" class="mainnav"><ul>${link('/console', 'app.nav')}${link('/console/team', 'nav.team')}${link('/keys', 'keys.title')}${link('/team/members', 'membersPage.title')}${link('/signin/team', 'app.switchTeam')}</ul></nav>`;
}

/**
 * A whole owner page in the console's look: the console's stylesheet (served with the console's
 * files) and its frame for signed-in pages (`top`: the header and navigation), a narrow column for
 * the signed-out forms. Until the console is built, `fallback` renders the plain page instead.
 */
export function ownerPage(title: string, top: string, body: string, built: boolean, fallback: (title: string, body: string) => string): string {
  if (!built) return fallback(title, top + body);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(/\brefloop\b/.test(title) ? title : `${title} · refloop`)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
</head>
<body class="owner">
${top}
<main id="main"${top ? '' : ' class="centered"'}>
${body}
</main>
</body>
</html>`;
}

/** Where the owner pages' one script lives: the Copy button of a key shown once (served by owner.ts). */
export const COPY_SCRIPT_PATH = '/owner/copy-key.js';

/**
 * The Copy button's script, served from our own origin (the pages' CSP allows `script-src 'self'`,
 * nothing inline). It shows each button and copies the key it names to the clipboard, saying so in
 * the status line beside it; without clipboard access it selects the key, to copy by hand.
 */
export const COPY_SCRIPT = `'use strict';
for (const button of document.querySelectorAll('button[data-copy]')) {
  const code = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  if (!code) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    if (status) status.textContent = '';
    try {
      await navigator.clipboard.writeText(code.textContent);
      if (status) status.textContent = button.dataset.copied;
    } catch {
      getSelection().selectAllChildren(code);
    }
  });
}
`;

/** The one-time message: new key secrets (shown exactly once) and notices. */
export function flashView(flash: Flash | null): string {
  if (!flash) return '';
  const keys = flash.keys.map(
    (k, i) => `<section class="notice" role="status" aria-labelledby="new-key-${i}-title">
<h2 id="new-key-${i}-title">${h('flash.newKey', { team: k.teamName })}</h2>
<p>${h('keys.createdBody')}${k.replacedPrefix ? ` ${h('flash.replaces', { prefix: markup(`<code>${esc(k.replacedPrefix)}…</code>`) })}` : ''}</p>
<p><code class="secret" id="new-key-${i}">${esc(k.secret)}</code></p>
<p class="copy-line"><button type="button" data-copy="new-key-${i}" data-status="new-key-${i}-copied" data-copied="${h('keys.copied')}" hidden>${h('keys.copy')}</button> <span role="status" id="new-key-${i}-copied"></span></p>
</section>`,
  );
  // The Copy button shows only when the script runs; without it the key stays visible and selectable.
  const script = keys.length ? `\n<script src="${COPY_SCRIPT_PATH}" defer></script>` : '';
  return keys.join('\n') + script + noticeBox(flash.notice);
}

/** `/set-password`: choose the password for signing in. */
export function setPasswordView(token: string, email: string, error?: string): string {
  return `<h1>${h('password.title')}</h1>
<p>${h('password.intro', { email: markup(`<strong>${esc(email)}</strong>`) })}</p>
${alertBox(error)}
<form method="post" action="/set-password?token=${esc(encodeURIComponent(token))}">
${passwordFields()}
<button type="submit">${h('password.submit')}</button>
</form>`;
}

/** A one-time link (to choose a password, to join a team) that is unknown, used or expired. */
export function invalidLinkView(kind: 'password' | 'invitation'): string {
  return `<h1>${h(`link.${kind}.heading`)}</h1>
<p class="error" role="alert">${h('link.invalid', { remedy: t(`link.${kind}.remedy`) })}</p>
<p><a href="/signin">${h('link.toSignin')}</a></p>`;
}

/** The hidden double-submit token of the forms that have no session yet (form-source.ts). */
function formTokenField(token: string): string {
  return `<input type="hidden" name="form" value="${esc(token)}">`;
}

/**
 * `/signin`, and the same form on the OAuth consent page (`consent`: posted there with the
 * sealed authorization request, so the owner comes back to it afterwards).
 */
export function signInView(email: string, formToken: string, error?: string | null, notice?: string | null, consent?: { action: string; request: string }, next?: string | null): string {
  return `<h1>${h('signedOut.action')}</h1>
${noticeBox(notice)}${alertBox(error)}
<form method="post" action="${consent ? esc(consent.action) : '/signin'}">
${formTokenField(formToken)}${next ? `<input type="hidden" name="next" value="${esc(next)}">` : ''}${consent ? `<input type="hidden" name="action" value="signin"><input type="hidden" name="request" value="${esc(consent.request)}">` : ''}
<label for="email">${h('signin.email')}</label>
<input type="email" id="email" name="email" autocomplete="username" maxlength="254" required value="${esc(email)}">
<label for="password">${h('signin.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" maxlength="${PASSWORD_MAX}" required>
<button type="submit">${h('signedOut.action')}</button>
</form>
<p>${h('signin.noPassword')}</p>
<p>${h('signin.newHere', { link: markup(`<a href="/signup">${h('signup.title')}</a>`) })}</p>`;
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
  return `<h1>${h('signup.title')}</h1>
<p>${h('signup.intro')}</p>
${alertBox(error)}
<form method="post" action="/signup">
${formTokenField(formToken)}
<label for="email">${h('signup.email')}</label>
<input type="email" id="email" name="email" autocomplete="email" maxlength="254" required value="${esc(v.email)}">
<label for="first-name">${h('signup.firstName')}</label>
<input type="text" id="first-name" name="firstName" autocomplete="given-name" maxlength="255" value="${esc(v.firstName)}">
<label for="last-name">${h('signup.lastName')}</label>
<input type="text" id="last-name" name="lastName" autocomplete="family-name" maxlength="255" value="${esc(v.lastName)}">
<label for="company">${h('signup.company')}</label>
<input type="text" id="company" name="company" autocomplete="organization" maxlength="255" value="${esc(v.company)}">
<div><input type="checkbox" id="terms" name="terms" value="on" required>
<label for="terms" style="display:inline">${h('signup.terms')}</label></div>
<button type="submit">${h('signup.submit')}</button>
</form>
<p>${h('signup.haveAccount', { link: markup(`<a href="/signin">${h('signedOut.action')}</a>`) })}</p>`;
}

/** After sign-up: where the two links went. */
export function signUpDoneView(email: string, outbox: boolean): string {
  return `<h1>${h('signup.done.title')}</h1>
<p class="notice" role="status">${h('signup.done.sent', { email: markup(`<strong>${esc(email)}</strong>`) })}</p>
<ol>
<li>${h('signup.done.verify')}</li>
<li>${h('signup.done.password')}</li>
<li>${h('signup.done.signin')}</li>
</ol>
${outbox ? `<p>${h('signup.done.outbox', { setting: markup('<code>SMTP_URL</code>'), link: markup(`<a href="/_dev/mail">${h('signup.done.outboxLink')}</a>`) })}</p>` : ''}
<p>${h('signup.done.deleted')}</p>`;
}

/** `/signin/team`: which team to work in. */
export function teamPickerView(teams: Membership[], csrf: string, currentTeamId: string | null, error?: string): string {
  if (teams.length === 0) return `<h1>${h('teams.none.title')}</h1><p class="error" role="alert">${h('teams.none.body')}</p>`;
  const options = teams
    .map(
      (team, i) => `<div><input type="radio" id="team-${i}" name="teamId" value="${esc(team.teamId)}"${team.teamId === currentTeamId || (!currentTeamId && i === 0) ? ' checked' : ''} required>
<label for="team-${i}" style="display:inline">${esc(team.teamName)} <span>${h('teams.role', { role: markup(named(`role.${team.role}`, team.role)) })}</span></label></div>`,
    )
    .join('\n');
  return `<h1>${h('noTeam.title')}</h1>
${alertBox(error)}
<form method="post" action="/signin/team">
${csrfField(csrf)}
<fieldset><legend>${h('teams.legend')}</legend>
${options}
</fieldset>
<button type="submit">${h('teams.submit')}</button>
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
<td>${k.scopes.length === SCOPES.length ? h('keys.allScopes') : k.scopes.map((s) => `<code>${esc(s)}</code>`).join(', ')}</td>
<td>${k.programIds ? k.programIds.map((p) => `<code>${esc(p)}</code>`).join(', ') : h('keys.allPrograms')}</td>
<td>${named(`keys.origin.${k.origin}`, k.origin)}</td>
<td>${time(k.createdAt)}</td>
<td><form method="post" action="/keys/revoke">${csrfField(csrf)}<input type="hidden" name="prefix" value="${esc(k.prefix)}"><button type="submit">${h('keys.revoke', { prefix: k.prefix })}</button></form></td>
</tr>`,
    )
    .join('\n');
  const table = keys.length
    ? `<table><caption>${h('keys.table', { name: teamName })}</caption>
<thead><tr>${(['keys.prefix', 'keys.label', 'keys.scopes', 'keys.programs', 'keys.origin', 'keys.created', 'keys.action'] as const).map((c) => `<th scope="col">${h(c)}</th>`).join('')}</tr></thead>
<tbody>${rows}</tbody></table>`
    : `<p>${h('keys.none')}</p>`;
  const chosen = new Set(values?.scopes ?? []);
  const scopeBoxes = SCOPES.map(
    (s, i) => `<div><input type="checkbox" id="scope-${i}" name="scopes" value="${esc(s)}"${chosen.has(s) ? ' checked' : ''} aria-describedby="scope-${i}-desc">
<label for="scope-${i}" style="display:inline"><code>${esc(s)}</code></label> <span id="scope-${i}-desc">${esc(SCOPE_DESCRIPTIONS[s])}</span></div>`,
  ).join('\n');
  return `<h1>${h('keys.title')}</h1>
<p>${h('keys.intro')}</p>
${alertBox(error)}
${table}
<h2>${h('keys.create')}</h2>
<form method="post" action="/keys">
${csrfField(csrf)}
<fieldset><legend>${h('keys.scopesLegend')}</legend>
${scopeBoxes}
</fieldset>
<label for="program-ids">${h('keys.limitPrograms')}</label>
<input type="text" id="program-ids" name="programIds" maxlength="4000" aria-describedby="program-ids-help" value="${esc(values?.programIds ?? '')}">
<p id="program-ids-help">${h('keys.limitProgramsHelp')}</p>
<label for="key-label">${h('keys.labelField')}</label>
<input type="text" id="key-label" name="label" maxlength="100" value="${esc(values?.label ?? '')}">
<button type="submit">${h('keys.submit')}</button>
</form>`;
}

/** `/team/members`: who is in the team and, for Owners and Admins, the invite form. */
export function membersView(teamName: string, members: Member[], csrf: string, mayInvite: boolean, error?: string | null, values?: { email: string; role: string; manageApi: boolean }): string {
  const rows = members
    .map((m) => `<tr><td>${esc(m.email)}</td><td>${named(`role.${m.role}`, m.role)}</td><td>${h(m.role !== 'MEMBER' || m.manageApi ? 'members.yes' : 'members.no')}</td><td>${time(m.joinedAt)}</td></tr>`)
    .join('\n');
  const role = values?.role ?? 'MEMBER';
  const form = mayInvite
    ? `<h2>${h('invite.title')}</h2>
${alertBox(error)}
<form method="post" action="/team/members/invite">
${csrfField(csrf)}
<label for="invite-email">${h('invite.email')}</label>
<input type="email" id="invite-email" name="email" autocomplete="off" maxlength="254" required value="${esc(values?.email ?? '')}">
<label for="invite-role">${h('invite.role')}</label>
<select id="invite-role" name="role">
<option value="MEMBER"${role === 'MEMBER' ? ' selected' : ''}>${h('role.MEMBER')}</option>
<option value="ADMIN"${role === 'ADMIN' ? ' selected' : ''}>${h('membersPage.roleAdmin')}</option>
</select>
<div><input type="checkbox" id="invite-manage-api" name="manageApi" value="on"${values?.manageApi ? ' checked' : ''}>
<label for="invite-manage-api" style="display:inline">${h('membersPage.manageApi')}</label></div>
<button type="submit">${h('invite.submit')}</button>
</form>`
    : alertBox(error) + `<p>${h('invite.onlyAdmins')}</p>`;
  return `<h1>${h('membersPage.title')}</h1>
<table><caption>${h('members.table', { name: teamName })}</caption>
<thead><tr>${(['col.email', 'invite.role', 'members.manageApi', 'col.joined'] as const).map((c) => `<th scope="col">${h(c)}</th>`).join('')}</tr></thead>
<tbody>${rows}</tbody></table>
${form}`;
}

/** `/invite/accept`: join the team, choosing a password when the address has none yet. */
export function inviteView(token: string, inv: Invitation, error?: string): string {
  const as = inv.role === 'ADMIN' ? 'join.asAdmin' : inv.manageApi ? 'join.asMemberApi' : 'join.asMember';
  return `<h1>${h('join.title', { team: inv.teamName })}</h1>
<p>${h(as, { email: markup(`<strong>${esc(inv.email)}</strong>`) })}</p>
${alertBox(error)}
<form method="post" action="/invite/accept?token=${esc(encodeURIComponent(token))}">
${inv.needsPassword ? passwordFields() : `<p>${h('join.hasAccount')}</p>`}
<button type="submit">${h('join.submit')}</button>
</form>`;
}

/** A short page for refusals (403) and other dead ends. */
export function messageView(heading: string, text: string, link: { href: string; text: string } | null = { href: '/signin', text: t('link.toSignin') }): string {
  return `<h1>${esc(heading)}</h1>${alertBox(text)}${link ? `<p><a href="${esc(link.href)}">${esc(link.text)}</a></p>` : ''}`;
}
