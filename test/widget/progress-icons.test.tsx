// @vitest-environment happy-dom
// Issue #24: the progress panel's arithmetic (next reward, milestone steps, plurals) and the
// accessible names of the share icons, leaderboard avatars and reward images. No server: the state
// signal is set by hand, as a window payload would set it.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { progress, nextAt, type RewardConfig } from '../../widget/window/panels/progress-math.ts';
import Progress, { nextText } from '../../widget/window/panels/progress.tsx';
import * as home from '../../widget/window/panels/next-reward.ts';
import { Share } from '../../widget/window/panels/share.tsx';
import { Avatar, initials } from '../../widget/window/panels/lists.tsx';
import { state } from '../../widget/window/state.ts';
import { mount } from '../../widget/window/ui.tsx';
import { t } from '../../widget/i18n/index.ts';
import '../../widget/i18n/panels.ts';

let n = 0;
function reward(over: Partial<RewardConfig>): RewardConfig {
  return {
    id: `r${++n}`,
    type: 'MILESTONE',
    event: 'CONVERSION',
    title: null,
    description: null,
    referralDescription: null,
    imageUrl: null,
    isUnlimited: false,
    limit: -1,
    limitDuration: 'IN_TOTAL',
    conversionsRequired: 1,
    numberOfWinners: null,
    referredRewardUpfront: false,
    nextMilestonePrefix: null,
    nextMilestoneSuffix: null,
    commissionStructure: null,
    order: n,
    ...over,
  } as RewardConfig;
}
const who = (referralCount: number, more: Record<string, number> = {}) => ({ referralCount, leadCount: 0, rank: 0, monthlyRank: 0, prevMonthlyRank: 0, ...more });
const ladder = () => [reward({ conversionsRequired: 10, description: 'A hoodie' }), reward({ conversionsRequired: 3, description: 'Stickers' }), reward({ conversionsRequired: 5, description: 'A mug' })];

describe('progress arithmetic', () => {
  it('orders milestones by the count that earns them and marks done, next and later', () => {
    const p = progress(who(4), ladder(), null);
    expect(p.count).toBe(4);
    expect(p.steps.map((s) => [s.reward.description, s.at, s.state, s.remaining])).toEqual([
      ['Stickers', 3, 'done', 0],
      ['A mug', 5, 'next', 1],
      ['A hoodie', 10, 'later', 6],
    ]);
    expect(p.next).toMatchObject({ remaining: 1, at: 5 });
    expect(p.next!.reward.description).toBe('A mug');
  });

  it('has no next reward once every limited reward is earned, and every step is done', () => {
    const p = progress(who(12), ladder(), null);
    expect(p.next).toBeNull();
    expect(p.steps.every((s) => s.state === 'done')).toBe(true);
  });

  it('per-referral rewards are one referral away until their total limit is reached; a repeating milestone moves to its next multiple', () => {
    expect(nextAt(who(2), reward({ type: 'DOUBLE_SIDED', isUnlimited: true }))).toBe(3);
    expect(nextAt(who(2), reward({ type: 'SINGLE_SIDED', limit: 2 }))).toBeNull();
    expect(nextAt(who(2), reward({ type: 'SINGLE_SIDED', limit: 2, limitDuration: 'PER_MONTH' }))).toBe(3);
    expect(nextAt(who(7), reward({ conversionsRequired: 5, isUnlimited: true }))).toBe(10);
    expect(nextAt(who(7), reward({ conversionsRequired: 5, limit: 2 }))).toBe(10);
    expect(nextAt(who(10), reward({ conversionsRequired: 5, limit: 2 }))).toBeNull();
    // LEAD rewards count recorded sign-ups too (the server's rule).
    expect(nextAt(who(1, { leadCount: 2 }), reward({ conversionsRequired: 5, event: 'LEAD' }))).toBe(5);
    expect(nextAt(who(1, { leadCount: 2 }), reward({ conversionsRequired: 5 }))).toBe(5);
    expect(progress(who(1, { leadCount: 2 }), [reward({ conversionsRequired: 5, event: 'LEAD' })], null).next!.remaining).toBe(2);
  });

  it('the nearest reward wins, ties by the rewards’ order; leaderboard rewards are prizes, not steps', () => {
    const rs = [reward({ conversionsRequired: 2, description: 'Milestone' }), reward({ type: 'SINGLE_SIDED', isUnlimited: true, description: 'Per referral' }), reward({ type: 'LEADERBOARD', numberOfWinners: 3, description: 'A trip' })];
    const p = progress(who(0), rs, null);
    expect(p.next).toMatchObject({ remaining: 1, at: 1 });
    expect(p.next!.reward.description).toBe('Per referral');
    // At one referral both are one away: the reward listed first wins.
    expect(progress(who(1), rs, null).next!.reward.description).toBe('Milestone');
    expect(p.prizes.map((r) => r.description)).toEqual(['A trip']);
    expect(p.steps).toHaveLength(1);
  });

  it('reads the rank of the board the program shows, none without a leaderboard', () => {
    const me = who(3, { rank: 7, monthlyRank: 2, prevMonthlyRank: 9 });
    const board = (leaderboardType: string) => ({ leaderboardType, rows: [], limit: 10, nextOffsetKey: null }) as never;
    expect(progress(me, [], null).rank).toBeNull();
    expect(progress(me, [], board('ALL_TIME')).rank).toBe(7);
    expect(progress(me, [], board('CURRENT_MONTH')).rank).toBe(2);
    expect(progress(me, [], board('PREV_MONTH')).rank).toBe(9);
  });

  it('says how far away the next reward is, in the plural form for the count, or in the milestone’s own copy', () => {
    const mug = reward({ description: 'a mug', conversionsRequired: 5 });
    expect(nextText(mug, 1)).toBe('1 more referral to earn a mug');
    expect(nextText(mug, 3)).toBe('3 more referrals to earn a mug');
    expect(nextText(reward({ nextMilestonePrefix: 'Only', nextMilestoneSuffix: 'friends to go!' }), 2)).toBe('Only 2 friends to go!');
    expect(t('progress.count', { count: 1 })).toBe('referral so far');
    expect(t('progress.count', { count: 0 })).toBe('referrals so far');
    expect(t('progress.at', { count: 1 })).toBe('At 1 referral');
    expect(t('progress.prize', { count: 3, reward: 'X' })).toBe('The top 3 participants win X');
  });

  // Issue #32: the home's first paint carries its own copy of the next-reward arithmetic
  // (next-reward.ts, for bytes); it must name the same reward, count and text as the figures do.
  it('the home’s copy of the next-reward arithmetic agrees with the progress panel’s over any rewards and counts', () => {
    const anyReward = fc.record({
      type: fc.constantFrom('SINGLE_SIDED', 'DOUBLE_SIDED', 'MILESTONE', 'LEADERBOARD', 'AFFILIATE'),
      event: fc.constantFrom('CONVERSION', 'LEAD'),
      conversionsRequired: fc.option(fc.integer({ min: -1, max: 12 })),
      isUnlimited: fc.boolean(),
      limit: fc.option(fc.integer({ min: -1, max: 4 })),
      limitDuration: fc.constantFrom('IN_TOTAL', 'PER_MONTH'),
      order: fc.integer({ min: 0, max: 3 }),
      description: fc.option(fc.constantFrom('A mug', 'A bag of single-origin beans roasted this week')),
      title: fc.option(fc.constantFrom('Mug', 'Beans')),
      nextMilestonePrefix: fc.option(fc.constantFrom('Only', ' ')),
      nextMilestoneSuffix: fc.option(fc.constantFrom('to go!', '')),
    });
    fc.assert(
      fc.property(fc.array(anyReward, { maxLength: 5 }), fc.nat(30), fc.nat(5), (overs, referralCount, leadCount) => {
        const rs = overs.map((o) => reward(o as Partial<RewardConfig>));
        const p = who(referralCount, { leadCount });
        const panel = progress(p, rs, null).next;
        const mine = home.nextReward(p, rs);
        expect(mine && { id: mine.reward.id, remaining: mine.remaining }).toEqual(panel && { id: panel.reward.id, remaining: panel.remaining });
        if (mine) expect(home.nextText(mine.reward, mine.remaining)).toBe(nextText(panel!.reward, panel!.remaining));
        for (const r of rs) expect(home.nextAt(p, r)).toBe(nextAt(p, r));
      }),
    );
  });
});

const win = (over: Record<string, unknown> = {}) =>
  ({
    participant: { id: 'p1', email: 'ann@example.com', firstName: 'Ann', referralCount: 4, leadCount: 0, rank: 2, monthlyRank: 1, prevMonthlyRank: null, shareUrl: 'https://shop.test/?grsf=ann' },
    type: 'REFERRAL',
    languages: ['en'],
    design: {},
    share: { preferredUrl: null, fallbackUrl: 'https://x.test/r/p', channels: ['facebook', 'whatsapp', 'wechat'] },
    rewards: ladder(),
    leaderboard: { leaderboardType: 'ALL_TIME', rows: [], limit: 10, nextOffsetKey: null },
    payoutSettings: { payoutDestinations: { enabledProviders: [] } },
    recaptchaSiteKey: null,
    traffic: null,
    affiliate: null,
    ...over,
  }) as never;
const campaign = { id: 'p', name: 'Acme', type: 'REFERRAL', status: 'IN_PROGRESS', currencyISO: 'USD', companyName: 'Acme', companyLogoImageUrl: null, rewards: [] } as never;
const until = async <T,>(fn: () => T | null | undefined): Promise<T> => {
  for (let i = 0; i < 100; i++) {
    const v = fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
};
function draw(vnode: preact.VNode): ShadowRoot {
  const host = document.createElement('div');
  document.body.append(host);
  return mount(host, vnode);
}
afterEach(() => {
  document.body.innerHTML = '';
  state.value = { status: 'loading' };
});

describe('icons and images have text alternatives', () => {
  it('share buttons are named by their text; their icons are decorative and come from one sprite of the enabled channels', async () => {
    state.value = { status: 'ready', win: win(), campaign, referred: false };
    const root = draw(<Share />);
    const sprite = await until(() => root.querySelector('svg[aria-hidden="true"] symbol')?.parentElement);
    expect(root.querySelectorAll('symbol')).toHaveLength(3); // copy, facebook, whatsapp (wechat has no web share URL)
    expect([...sprite.querySelectorAll('symbol')].map((s) => s.id)).toEqual(['grsf-i-copy', 'grsf-i-facebook', 'grsf-i-whatsapp']);
    const links = [...root.querySelectorAll('a.btn')];
    expect(links.map((a) => a.getAttribute('aria-label'))).toEqual(['Share via Facebook', 'Share via WhatsApp']);
    expect(links.map((a) => a.textContent)).toEqual(['Facebook', 'WhatsApp']);
    for (const el of [...links, root.querySelector('button')!]) {
      const icon = el.querySelector('svg')!;
      expect(icon.getAttribute('aria-hidden')).toBe('true');
      expect(icon.querySelector('use')!.getAttribute('href')).toMatch(/^#grsf-i-/);
    }
    expect(root.querySelector('button')!.textContent).toBe('Copy link');
  });

  it('icon-only buttons (design share.buttonStyle.isLabelShown off) keep their text for assistive technology', async () => {
    state.value = { status: 'ready', win: win({ design: { share: { buttonStyle: { shape: 'CIRCLE', isLabelShown: false, isBrandColored: true } } } }), campaign, referred: false };
    const root = draw(<Share />);
    const css = await until(() => [...root.querySelectorAll('style')].map((s) => s.textContent).find((c) => c?.includes('.sb')));
    expect(css).toContain('clip:rect(0 0 0 0)');
    expect(css).toContain('border-radius:999px');
    expect(css).toContain('[data-c=facebook]{background:#0866ff');
    expect(root.querySelector('a.btn .l')!.textContent).toBe('Facebook');
  });

  it('leaderboard avatars show initials (or a gradient) and are hidden from assistive technology beside the name', () => {
    expect(initials('Ann Lee')).toBe('AL');
    expect(initials('émile zola duc')).toBe('ÉZ');
    expect(initials(null, 'b***@example.com')).toBe('B');
    expect(initials(null, null)).toBe('?');
    const root = draw(
      <>
        <Avatar name="Ann Lee" />
        <Avatar name="Ann Lee" style="GRADIENT" />
      </>,
    );
    const [a, g] = [...root.querySelectorAll('.av')];
    expect(a!.getAttribute('aria-hidden')).toBe('true');
    expect(a!.textContent).toBe('AL');
    expect(g!.textContent).toBe('');
  });

  it('the progress panel names its bar, marks the next step and gives reward images an empty alt beside their names', () => {
    const rs = ladder();
    rs[2]!.imageUrl = 'https://img.test/mug.png';
    state.value = { status: 'ready', win: win({ rewards: rs }), campaign, referred: false };
    const root = draw(<Progress />);
    const bar = root.querySelector('[role=progressbar]')!;
    expect(bar.getAttribute('aria-label')).toBe('Progress toward your next milestone');
    expect(bar.getAttribute('aria-valuetext')).toBe('4 of 5 referrals');
    expect(root.querySelector('[aria-current=step]')!.textContent).toContain('A mug');
    const img = root.querySelector('img')!;
    expect(img.getAttribute('alt')).toBe('');
    expect(img.parentElement!.textContent).toContain('A mug');
    const text = root.textContent!;
    expect(text).toContain('1 more referral to earn A mug');
    expect(text).toContain('Your rank on the leaderboard: #2');
    expect(text).toContain('Earned');
  });
});
