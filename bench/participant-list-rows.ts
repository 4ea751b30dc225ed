// Row (o): the console's participants list (P1 with the refloop extensions, issue #23) on the
// program the leaderboard rows seeded, in process: server time of a first page, a search and a deep
// cursor page, 50 full participants each (the console's page).
import type { Deps } from '../server/http/deps.ts';
import type { Program } from '../server/domain/programs/programs.ts';
import { participantListQuery } from '../shared/schemas/participant-list.ts';
import { IN_PROCESS_CALLS } from './settings.ts';
import { measureCalls, type Row } from './table.ts';

/** Times P1's first page, an email search and a page from a random participant onwards. */
export async function participantListRows(deps: Deps, program: Program, seedNote: string): Promise<Row[]> {
  const sample: Array<{ id: string; email: string }> = await deps.db.knex.raw('SELECT id, email FROM participants WHERE program_id = ? ORDER BY random() LIMIT ?', [program.id, IN_PROCESS_CALLS]);
  const list = (q: Record<string, string>) => deps.participants.list(program, participantListQuery.parse({ limit: '50', ...q }));
  const first = await measureCalls('(o) participants list, first page', () => list({ sort: 'createdAt' }));
  first.note = `P1 + extensions, newest first, 50 full participants, in process, SQLite; ${seedNote}`;
  // "p123." is one participant's email up to its dot: a prefix only it has.
  const search = await measureCalls('(o) participants list, search', (i) => list({ search: sample[i % sample.length]!.email.split('.')[0]! + '.' }));
  search.note = 'search=<a random participant’s email prefix>: the union of the email, name, id, share-key and vanity-key lookups';
  const deep = await measureCalls('(o) participants list, deep cursor page', (i) => list({ sort: 'createdAt', nextId: sample[i % sample.length]!.id }));
  deep.note = 'nextId = a random participant (on average half the program deep): one index seek past it';
  return [first, search, deep];
}
