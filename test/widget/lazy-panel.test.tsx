// @vitest-environment happy-dom
// A lazily loaded panel whose chunk arrives between its first render and its effect (a preload started
// before the render, as boot does for the first panel) must still draw the panel. Preact runs effects a
// frame after the render; before the fix the effect saw the chunk already loaded, asked for nothing and
// the element said "Loading…" for ever (the console's referred-friend preview under CI load).
import { describe, expect, it } from 'vitest';
import { render } from 'preact';
import { lazy } from '../../widget/window/panels/registry.tsx';
import { until } from './window-runtime.ts';

describe('lazy panels', () => {
  it('draw the panel when the chunk arrives after the render and before the effect', async () => {
    let arrive!: (m: { default: () => preact.JSX.Element }) => void;
    const chunk = new Promise<{ default: () => preact.JSX.Element }>((r) => (arrive = r));
    const Panel = lazy(() => chunk);
    void Panel.preload();
    const el = document.createElement('div');
    document.body.append(el);
    render(<Panel />, el);
    expect(el.textContent).toBe('Loading…');
    arrive({ default: () => <p>The panel</p> });
    await chunk;
    expect(await until(() => el.textContent === 'The panel' && el.textContent)).toBe('The panel');
  });

  it('draw the panel when the chunk arrives after the effect', async () => {
    let arrive!: (m: { default: () => preact.JSX.Element }) => void;
    const chunk = new Promise<{ default: () => preact.JSX.Element }>((r) => (arrive = r));
    const Panel = lazy(() => chunk);
    const el = document.createElement('div');
    document.body.append(el);
    render(<Panel />, el);
    await new Promise((r) => setTimeout(r, 100));
    expect(el.textContent).toBe('Loading…');
    arrive({ default: () => <p>The panel</p> });
    expect(await until(() => el.textContent === 'The panel' && el.textContent)).toBe('The panel');
  });
});
