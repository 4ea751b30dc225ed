// @vitest-environment happy-dom
// Two reloads of the window's state that overlap (boot's, and a sign-in's while boot's is still
// reading): the one started last decides what the window shows, whichever finishes last. Before the
// fix boot's older read, finishing after the sign-in, showed the visitor as signed out again.
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { mobileProgram } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { windowSuite, asServer, makeRuntime, tokenFor, until } from './window-runtime.ts';

let app: TestApp;
windowSuite((a) => (app = a));
const gs = () => (window as any).growsurf;

describe('overlapping reloads of the window state', () => {
  it('keep the newer one: a sign-in during boot stays signed in when boot’s older read finishes last', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const ann = await tokenFor(app, p, 'ann@example.com');
    const rt = await makeRuntime(app, p.pid);
    // The host runtime's first read of the pending referral (boot's reload) waits until the test lets it go.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reads = 0;
    let held = false;
    const pending = rt.pendingAttribution;
    rt.pendingAttribution = async () => {
      if (reads++ === 0) {
        held = true;
        await gate;
      }
      return pending();
    };
    const booted = boot(rt);
    await until(() => held);
    await gs().setParticipantToken(ann.participantToken);
    expect(gs().currentParticipantId()).toBe(ann.participant.id);
    release();
    await booted;
    expect(gs().currentParticipantId()).toBe(ann.participant.id);
  });
});
