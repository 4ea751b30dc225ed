import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, SKIP_BROWSER, startDemo, type DemoServer } from './helpers.ts';

// C6 referral-flow screenshots with Debian's Chromium (issue #7): both views of a real program are
// rendered by our own widget from the saved configuration, stored, and served behind signed links
// that stop working after 15 minutes.

describe.skipIf(SKIP_BROWSER)('referral-flow screenshots in Chromium', () => {
  let demo: DemoServer;
  beforeAll(async () => {
    demo = await startDemo();
  }, 120_000);
  afterAll(async () => {
    await demo?.app.close();
  });

  it('captures the referrer window and the referred-friend view as signed, expiring JPEGs', async () => {
    const count = async (table: string) => Number((await demo.app.deps.db.knex(table).where({ program_id: demo.state.referralProgramId }).count({ n: '*' }).first())?.n ?? 0);
    const before = { visits: await count('visits'), participants: await count('participants') };
    const res = await demo.app.request('POST', `/v2/campaign/${demo.state.referralProgramId}/referral-flow-screenshots`, { key: demo.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.screenshots.map((s: { view: string }) => s.view)).toEqual(['referrer', 'referredFriend']);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.generatedAt)).toBe(15 * 60_000);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    for (const shot of res.body.screenshots) {
      expect(shot).toMatchObject({ width: 1024, height: 768, contentType: 'image/jpeg', expiresAt: res.body.expiresAt });
      const image = await fetch(shot.url);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      const bytes = Buffer.from(await image.arrayBuffer());
      expect(bytes.subarray(0, 3).toString('hex')).toBe('ffd8ff');
      expect(bytes.length).toBeGreaterThan(5_000);
      fs.writeFileSync(path.join(ARTIFACTS, `screenshot-${shot.view}.jpg`), bytes);
    }
    // The previews send nothing: no visit, no participant (the sample referrer exists nowhere).
    expect({ visits: await count('visits'), participants: await count('participants') }).toEqual(before);
    demo.app.clock.advance(15 * 60_000 + 1);
    expect((await fetch(res.body.screenshots[0].url)).status).toBe(403);
  }, 120_000);
});
