// The team's programs as the frame's switcher shows them (console/shell.tsx), kept apart from the
// shell so a page that renames a program (setup, Settings › Options) updates the switcher without
// importing the frame.
import { signal } from '@preact/signals';
import { api } from './api.ts';
import { rememberProgramType } from './program-type.ts';

/** One program in the switcher. */
export interface ProgramSummary {
  id: string;
  name: string;
  type: 'REFERRAL' | 'AFFILIATE';
}

/** The team's programs (null before the first read). */
export const programs = signal<ProgramSummary[] | null>(null);
let asked = '';

/** The reason of the last read (the shell reads again only for a new one). */
export const programsAsked = () => asked;

/** Reads the team's programs for the switcher once per `reason` (the first page, a visit of the programs list, a program it does not know yet). */
export function loadPrograms(reason: string): void {
  if (asked === reason) return;
  asked = reason;
  api<{ campaigns: ProgramSummary[] }>('GET', '/campaigns').then(
    (d) => {
      programs.value = d.campaigns.map((c) => ({ id: c.id, name: c.name, type: c.type }));
      for (const c of d.campaigns) rememberProgramType(c.id, c.type);
    },
    () => (asked = ''),
  );
}

/** After PATCH /campaign/{id} saved a new name: the switcher and the top bar show it at once. */
export function programRenamed(id: string, name: string): void {
  if (programs.value?.some((p) => p.id === id)) programs.value = programs.value.map((p) => (p.id === id ? { ...p, name } : p));
}
