// Client-side routes of the console: the address bar is the state (links can be shared and opened
// in new tabs), pages load lazily, and a route change moves focus to the new page's heading.
import { signal } from '@preact/signals';
import type { ComponentProps, ComponentType } from 'preact';

/** The current path (with its query string). */
export const here = signal(location.pathname + location.search);

/** Goes to `to` inside the console without reloading. */
export function navigate(to: string, replace = false): void {
  if (to === here.value) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  here.value = to;
  scrollTo(0, 0);
}

addEventListener('popstate', () => {
  here.value = location.pathname + location.search;
});

/** An in-console link: a real `<a href>` (middle-click and copy work) that navigates without a reload. */
export function Link(props: ComponentProps<'a'> & { href: string }) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  const current = here.value.split('?')[0] === props.href ? 'page' : undefined;
  return <a aria-current={current} {...props} onClick={onClick} />;
}

/** A page module: its default export takes the route's parameters. */
export type Page = ComponentType<{ params: Record<string, string> }>;

interface Route {
  pattern: RegExp;
  names: string[];
  load: () => Promise<{ default: Page }>;
}

const routes: Route[] = [
  { pattern: /^\/console\/?$/, names: [], load: () => import('./pages/home.tsx') },
  { pattern: /^\/console\/team\/?$/, names: [], load: () => import('./pages/team.tsx') },
  { pattern: /^\/console\/outbox\/?$/, names: [], load: () => import('./pages/outbox.tsx') },
  { pattern: /^\/console\/security\/?$/, names: [], load: () => import('./pages/security.tsx') },
  { pattern: /^\/console\/audit\/?$/, names: [], load: () => import('./pages/audit-log.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/?$/, names: ['programId'], load: () => import('./pages/program.tsx') },
  { pattern: /^\/console\/setup\/?$/, names: [], load: () => import('./pages/setup.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/setup\/([a-z]+)\/?$/, names: ['programId', 'step'], load: () => import('./pages/setup.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/settings(?:\/options)?\/?$/, names: ['programId'], load: () => import('./pages/settings-options.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/settings\/design\/?$/, names: ['programId'], load: () => import('./pages/settings-design.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/settings\/emails\/?$/, names: ['programId'], load: () => import('./pages/settings-emails.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/settings\/installation\/?$/, names: ['programId'], load: () => import('./pages/settings-installation.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/settings\/rewards\/?$/, names: ['programId'], load: () => import('./pages/settings-rewards.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/participants\/?$/, names: ['programId'], load: () => import('./pages/participants.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/affiliates(?:\/applications)?\/?$/, names: ['programId'], load: () => import('./pages/affiliate-applications.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/affiliates\/applications\/([A-Za-z0-9_-]+)\/?$/, names: ['programId', 'applicationId'], load: () => import('./pages/affiliate-application.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/affiliates\/invites\/?$/, names: ['programId'], load: () => import('./pages/affiliate-invites.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/affiliates\/commissions\/?$/, names: ['programId'], load: () => import('./pages/affiliate-commissions.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/affiliates\/payouts\/?$/, names: ['programId'], load: () => import('./pages/affiliate-payouts.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/analytics\/?$/, names: ['programId'], load: () => import('./pages/analytics.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/webhooks\/?$/, names: ['programId'], load: () => import('./pages/webhooks.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/integrations(?:\/(stripe|paddle))?\/?$/, names: ['programId', 'provider'], load: () => import('./pages/integrations.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/participants\/([A-Za-z0-9_-]+)\/?$/, names: ['programId', 'participantId'], load: () => import('./pages/participant.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/rewards\/?$/, names: ['programId'], load: () => import('./pages/rewards.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/fraud\/?$/, names: ['programId'], load: () => import('./pages/fraud.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/data\/?$/, names: ['programId'], load: () => import('./pages/data.tsx') },
  { pattern: /^\/console\/programs\/([A-Za-z0-9_-]+)\/data\/move-in\/?$/, names: ['programId'], load: () => import('./pages/move-in.tsx') },
  { pattern: /^\/console\/move-in\/?$/, names: [], load: () => import('./pages/move-in.tsx') },
];

/** The route for `path`: its loader and parameters, or null (the not-found page). */
export function match(path: string): { load: Route['load']; params: Record<string, string> } | null {
  const bare = path.split('?')[0]!;
  for (const r of routes) {
    const m = r.pattern.exec(bare);
    if (m) return { load: r.load, params: Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
  }
  return null;
}

/** The current query string's values. */
export function params(): URLSearchParams {
  return new URLSearchParams(here.value.split('?')[1] ?? '');
}
