import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, PASSWORD, expectAccessible, shot, shotWidths, signedInConsole, heading } from './console-helpers.ts';

// Issue #23: the Team and Outbox pages in Chromium, driven as an owner would: invite a teammate, who
// accepts in a second browser (the link read from the console's outbox) and appears; create a key
// with two scopes, its secret shown once and working over REST, then revoke it; sign out everywhere
// ends another browser's session. Invitations are resent (too soon, then after 5 minutes) and
// cancelled; the old and the cancelled links say why they no longer work, the new one joins.

describe.skipIf(SKIP_BROWSER)('console Team and Outbox pages in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });


  /** Signs `email` in to the console in a fresh browser context, through the console's own prompt. */
  async function consoleIn(email: string, width = 1440) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(`${app.url}/signin?next=/console/team`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/console\/team$/), page.getByRole('button', { name: 'Sign in' }).click()]);
    return { context, page };
  }

  it('invites a teammate who accepts in another browser; creates, uses and revokes a key; reads the outbox; signs out everywhere', async () => {
    const { acct, page, context } = await signedInConsole(app, browser);
    await (await consoleNav(page)).getByRole('link', { name: 'Team' }).click();
    await expect.poll(() => heading(page)).toBe('Team');
    await page.getByRole('table', { name: /^Members of/ }).getByRole('rowheader', { name: acct.email }).waitFor();
    await expect.poll(() => page.getByText('Not requested').count()).toBe(1);
    // The header's one primary action leads to the invitation form's first field.
    await page.getByRole('button', { name: 'Invite a teammate' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('invite-email');

    // Invite: a bad address first shows the API's own message, then a real one is sent.
    const mate = `mate-${Date.now().toString(36)}@northwind-roasters.com`;
    await page.getByLabel('Email address').fill(acct.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('alert').getByText(`${acct.email} is already a member of this team.`).waitFor();
    await page.getByLabel('Email address').fill(mate);
    await page.getByRole('checkbox', { name: /^Manage API/ }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').getByText(`Invitation sent to ${mate}.`).waitFor();
    await page.getByRole('table', { name: 'Invitations not yet accepted' }).getByRole('rowheader', { name: mate }).waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'team');

    // The outbox lists the invitation; its link is what the teammate opens.
    await (await consoleNav(page)).getByRole('link', { name: 'Outbox' }).click();
    await expect.poll(() => heading(page)).toBe('Outbox');
    const invitation = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^You are invited to the team/ }) }).first();
    await invitation.getByRole('cell', { name: mate, exact: true }).waitFor();
    const link = (await invitation.getByRole('link', { name: /\/invite\/accept\?token=/ }).textContent())!;
    await expectAccessible(page);
    await shotWidths(page, 'outbox');

    const second = await browser.newContext();
    const p2 = await second.newPage();
    await p2.goto(link);
    await p2.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await p2.getByLabel('Repeat the new password').fill(PASSWORD);
    await Promise.all([p2.waitForURL(/notice=joined/), p2.getByRole('button', { name: 'Join the team' }).click()]);
    await second.close();
    await (await consoleNav(page)).getByRole('link', { name: 'Team' }).click();
    const members = page.getByRole('table', { name: /^Members of/ });
    await members.getByRole('rowheader', { name: mate }).waitFor();
    expect(await members.getByRole('row', { name: new RegExp(mate) }).getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['Member', 'Yes']));
    await page.getByText('No invitation is waiting to be accepted.').waitFor();
    await shotWidths(page, 'team-no-invitations');

    // A key with two scopes: shown once, works over REST within its scopes.
    await page.getByRole('button', { name: 'Create key' }).click();
    // In plain words (issue #32), never the schema's.
    await page.getByRole('alert').getByText('Choose at least one scope.').waitFor();
    expect(await page.getByRole('alert').textContent()).not.toContain('Invalid request body');
    await page.getByRole('checkbox', { name: /^team:read/ }).check();
    await page.getByRole('checkbox', { name: /^program:read/ }).check();
    await page.getByLabel('Label (optional)').fill('Reporting');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('code.secret').textContent())!.trim();
    expect(secret).toMatch(/^sk_/);
    const prefix = secret.slice(0, 11);
    await page.getByRole('table', { name: /^Active API keys of/ }).getByRole('rowheader', { name: `${prefix}…` }).waitFor();
    expect((await app.request('GET', '/v2/team', { key: secret })).status).toBe(200);
    expect((await app.request('POST', '/v2/campaigns', { key: secret, body: { type: 'REFERRAL' } })).status).toBe(403);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.reload();
    await page.getByRole('table', { name: /^Active API keys of/ }).waitFor();
    expect(await page.content()).not.toContain(secret);

    // Revoke it: REST refuses it at once.
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Revoke ${prefix}…` }).click();
    await page.getByRole('status').getByText(`The key ${prefix}… is revoked and no longer works.`).waitFor();
    expect((await app.request('GET', '/v2/team', { key: secret })).status).toBe(403);

    // The owner pages keep their addresses, wear the console's look and link into it.
    await page.goto(`${app.url}/team/members`);
    await page.getByRole('cell', { name: mate }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('header.top')!).display)).toBe('flex');
    await expectAccessible(page);
    await shot(page, 'owner-members-1440');
    await page.getByRole('navigation', { name: 'Owner pages' }).getByRole('link', { name: 'Team', exact: true }).click();
    await expect.poll(() => heading(page)).toBe('Team');

    // Sign out everywhere: this browser and another one of the same owner.
    const other = await consoleIn(acct.email);
    await expect.poll(() => heading(other.page)).toBe('Team');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect.poll(() => heading(page)).toBe('Sign in to the console');
    await other.page.reload();
    await expect.poll(() => heading(other.page)).toBe('Sign in to the console');
    await other.context.close();
    await context.close();
  }, 120_000);

  it('resends an invitation (too soon, then after 5 minutes) and cancels another by keyboard; the old links say why they are dead, the new one joins', async () => {
    const { page, context } = await signedInConsole(app, browser);
    await page.goto(`${app.url}/console/team`);
    await expect.poll(() => heading(page)).toBe('Team');
    const tag = Date.now().toString(36);
    const ana = `ana-${tag}@northwind-roasters.com`;
    const bo = `bo-${tag}@northwind-roasters.com`;
    for (const email of [ana, bo]) {
      await page.getByLabel('Email address').fill(email);
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByRole('status').getByText(`Invitation sent to ${email}.`).waitFor();
    }
    const waiting = page.getByRole('table', { name: /^Invitations not yet accepted/ });
    await expect.poll(() => waiting.getByRole('rowheader').allTextContents()).toEqual(expect.arrayContaining([ana, bo]));

    /** The newest link the outbox shows for `email`'s invitation (the Outbox page, as the owner reads it). */
    const outboxLink = async (email: string, not?: string) => {
      await (await consoleNav(page)).getByRole('link', { name: 'Outbox' }).click();
      await expect.poll(() => heading(page)).toBe('Outbox');
      const mail = page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: /^You are invited to the team/ }) })
        .filter({ has: page.getByRole('cell', { name: email, exact: true }) })
        .first();
      const link = mail.getByRole('link', { name: /\/invite\/accept\?token=/ });
      await expect.poll(async () => ((await link.count()) ? (await link.textContent()) !== not : false)).toBe(true);
      const href = (await link.textContent())!;
      await (await consoleNav(page)).getByRole('link', { name: 'Team' }).click();
      await expect.poll(() => heading(page)).toBe('Team');
      return href;
    };
    const first = await outboxLink(ana);

    // Resend: refused with the API's words while the first sending is fresh, sent once 5 minutes passed.
    await page.getByRole('button', { name: `Resend the invite to ${ana}` }).click();
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual(['This invitation was sent moments ago; resend it again in 300 seconds.']);
    app.clock.advance(5 * 60_000);
    await page.getByRole('button', { name: `Resend the invite to ${ana}` }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Invitation sent again to ${ana} with a new link; the old link no longer works.`);
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    // The row stays with its renewed dates, and the button keeps the focus.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Resend the invite to ${ana}`);
    await expectAccessible(page);
    await shot(page, 'team-invitations-1440');
    const second = await outboxLink(ana, first);
    expect(second).not.toBe(first);

    // Cancel by keyboard, confirmed in the dialog: the row goes, the focus stays in the section.
    const dialogs: string[] = [];
    page.once('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: `Cancel the invite to ${bo}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Invitation to ${bo} cancelled; its link no longer works.`);
    expect(dialogs).toEqual([`Cancel the invitation to ${bo}? Its link stops working at once.`]);
    await expect.poll(() => waiting.getByRole('rowheader').allTextContents()).toEqual([ana]);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Invitations waiting');
    const cancelled = await outboxLink(bo);

    // The invitees, in another browser: the old and the cancelled links say why, the new one joins.
    const other = await browser.newContext();
    const p2 = await other.newPage();
    await p2.goto(first);
    await expect.poll(() => heading(p2)).toBe('A newer invitation was sent');
    expect(await p2.getByRole('alert').textContent()).toContain('Open the link in the newest invitation email.');
    expect(await p2.getByRole('button', { name: 'Join the team' }).count()).toBe(0);
    await expectAccessible(p2);
    await shot(p2, 'invitation-replaced');
    await p2.goto(cancelled);
    await expect.poll(() => heading(p2)).toBe('This invitation was cancelled');
    expect(await p2.getByRole('alert').textContent()).toContain('cancelled this invitation, so its link no longer works');
    await shot(p2, 'invitation-cancelled');
    await p2.goto(second);
    await p2.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await p2.getByLabel('Repeat the new password').fill(PASSWORD);
    await Promise.all([p2.waitForURL(/notice=joined/), p2.getByRole('button', { name: 'Join the team' }).click()]);
    await other.close();

    await page.reload();
    await expect.poll(() => heading(page)).toBe('Team');
    await page.getByRole('table', { name: /^Members of/ }).getByRole('rowheader', { name: ana }).waitFor();
    await page.getByText('No invitation is waiting to be accepted.').waitFor();
    await context.close();
  }, 120_000);

  it('is usable at 390 px: the Team and Outbox pages pass axe', async () => {
    const { page, context } = await signedInConsole(app, browser, 390);
    await page.goto(`${app.url}/console/team`);
    await expect.poll(() => heading(page)).toBe('Team');
    await page.getByRole('checkbox', { name: /^analytics:read/ }).waitFor();
    const cy = `cy-${Date.now().toString(36)}@northwind-roasters.com`;
    await page.getByLabel('Email address').fill(cy);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('button', { name: `Resend the invite to ${cy}` }).waitFor();
    await page.getByRole('checkbox', { name: /^analytics:read/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('code.secret').waitFor();
    await expectAccessible(page);
    await shot(page, 'team-new-key-390');
    await page.goto(`${app.url}/console/outbox`);
    await expect.poll(() => heading(page)).toBe('Outbox');
    await page.getByRole('table', { name: /^Your team’s mail, newest first/ }).getByRole('rowheader').first().waitFor();
    await expectAccessible(page);
    await shot(page, 'outbox-390');
    await page.goto(`${app.url}/keys`);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await expectAccessible(page);
    await shot(page, 'owner-keys-390');
    await context.close();
  }, 60_000);
  it('issue #35: the Audit log page lists the team’s entries, filters them by action and downloads the same rows as CSV', async () => {
    const { acct, page, context } = await signedInConsole(app, browser);
    await (await consoleNav(page)).getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => heading(page)).toBe('Audit log');
    const table = page.getByRole('table', { name: /^Audit entries, newest first/ });
    // Each entry in words: the action's label over its code, the resource type's name, the browser and system.
    const signIn = table.getByRole('row').filter({ has: page.getByRole('cell', { name: /^Signed in/ }) }).first();
    await signIn.waitFor();
    await signIn.getByText('Code access.signIn').waitFor();
    await signIn.getByRole('cell', { name: /^Member account/ }).waitFor();
    await signIn.getByText(/^Chrome \d+ on Linux$/).waitFor();
    await page.getByLabel('Action').selectOption({ label: 'Created the account' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/console\/audit\?action=A0$/);
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await table.getByRole('cell', { name: 'Sign-up', exact: true }).waitFor();
    await table.getByText(acct.email).waitFor();
    const href = (await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href'))!;
    expect(href).toBe('/console/api/v2/team/audit-log/export.csv?action=A0');
    const csv = await page.request.get(app.url + href);
    expect(csv.status()).toBe(200);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"A0"');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => page.getByLabel('Action').inputValue()).toBe('');
    await table.getByRole('cell', { name: /^Signed in/ }).first().waitFor();
    // The resource filter offers resource types by name.
    await page.getByLabel('Resource type').selectOption({ label: 'Member account' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/console\/audit\?resourceType=owner$/);
    await expect.poll(() => table.getByRole('cell', { name: 'Sign-up', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    // The member filter: only what this member did (the sign-up has no member).
    await page.getByLabel('Member or key').fill(acct.email);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\/console\/audit\?actor=/);
    await expect.poll(() => table.getByRole('cell', { name: 'Sign-up', exact: true }).count()).toBe(0);
    await table.getByRole('cell', { name: /^Signed in/ }).first().waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'audit-log');
    await context.close();
  }, 60_000);
});
