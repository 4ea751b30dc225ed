// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { mobileProgram, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { windowSuite, asServer, makeRuntime, textOf, tokenFor, until } from './window-runtime.ts';

// Issue #23: the design's country names (countryLabels, edited on the console's design page) name
// the countries of the traffic report; a breakdown's own value names come first, and a country
// without either keeps the browser's name for it.

let app: TestApp;
windowSuite((a) => (app = a));

const rest = (p: MobileProgramFixture, method: string, path: string, body?: unknown) => asServer(app, () => app.request(method, `/v2/campaign/${p.pid}${path}`, { key: p.key, body }));

describe('traffic report countries (data-grsf-block-traffic)', () => {
  it('names countries by the design’s country names, after the breakdown’s own value names', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const set = await rest(p, 'PATCH', '/design', {
      countryLabels: { DE: 'Deutschland', FR: 'Hexagone', GB: null },
      trafficInsights: { isPublicDisplayed: true, breakdowns: { geo: { values: { FR: 'France (the shop’s home)' } } } },
    });
    expect(set.status, set.text).toBe(200);
    const ann = await tokenFor(app, p, 'countries@example.com');
    const rt = await makeRuntime(app, p.pid, { participantToken: ann.participantToken });
    const record = (country: string) =>
      app.deps.activity.record(app.deps.db.knex, { programId: p.pid, participantId: ann.participant.id, type: 'VISIT', action: 'visit.unique', text: 'Visit', data: { country } });
    for (const c of ['DE', 'DE', 'DE', 'FR', 'FR', 'GB']) await record(c);
    const el = document.createElement('div');
    el.setAttribute('data-grsf-block-traffic', '');
    document.body.append(el);
    await boot(rt);
    await until(() => el.shadowRoot?.querySelectorAll('h4').length);
    const h = [...el.shadowRoot!.querySelectorAll('h4')].find((x) => textOf(x).trim() === 'Countries')!;
    const rows = [...h.nextElementSibling!.querySelectorAll('li')].map((li) => [...li.querySelectorAll('span')].map((x) => textOf(x).trim()));
    expect(rows).toEqual([
      ['Deutschland', '3'],
      ['France (the shop’s home)', '2'],
      // null: back to the standard name.
      [new Intl.DisplayNames([navigator.language || 'en'], { type: 'region' }).of('GB'), '1'],
    ]);
  });
});
