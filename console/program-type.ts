// Which type each program is (REFERRAL or AFFILIATE), asked of C2 once per program and kept for the
// session: the frame shows some program pages (affiliates) only for one type.
import { signal } from '@preact/signals';
import { api } from './api.ts';
import { t } from './i18n/index.ts';

type ProgramType = 'REFERRAL' | 'AFFILIATE';
const types = signal<Record<string, ProgramType>>({});
const asked = new Set<string>();

/** The program's type once known (undefined while it is being read); reading it subscribes. */
export function programType(id: string): ProgramType | undefined {
  const known = types.value[id];
  if (!known && !asked.has(id)) {
    asked.add(id);
    api<{ type: ProgramType }>('GET', `/campaign/${encodeURIComponent(id)}`).then(
      (c) => rememberProgramType(id, c.type),
      () => asked.delete(id),
    );
  }
  return known;
}

/** Records a program's type a page has already read. */
export function rememberProgramType(id: string, type: ProgramType): void {
  if (types.value[id] !== type) types.value = { ...types.value, [id]: type };
}

/** The name a new program of `type` is offered (editable; the API refuses an empty one instead of naming it itself). */
export const defaultProgramName = (type: ProgramType): string => t(type === 'REFERRAL' ? 'setup.defaultName.REFERRAL' : 'setup.defaultName.AFFILIATE');
