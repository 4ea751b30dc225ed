import { writeFile } from 'node:fs/promises';
import type { Deps } from './deps.ts';
import { toProgram, type Program } from './domain/programs/programs.ts';
import { EXPORT_FORMATS, type ExportFormat } from './domain/affiliate/payout-providers.ts';
import { NotFoundError, WrongProgramTypeError } from './errors.ts';
import { payoutStatus, payoutStatusChange, type Payout } from '../shared/schemas/payout.ts';

// `refloop payouts …`: the owner's side of the manual payout provider from a shell. Each command
// calls the same domain methods as REST (AF14, PO1, PO3, PO2), so rules and emails are identical.

type Out = { log(s: string): void; error(s: string): void };
type Values = Record<string, string | boolean | undefined>;

/** Exit code 2 with the command's usage: the arguments were wrong. */
function usage(out: Out, message: string, help: string): number {
  out.error(`${message}\n\n${help}`);
  return 2;
}

/** The live affiliate program `id` (404 / 422 as REST would answer, as exit code 1). */
async function affiliateProgram(deps: Deps, id: string): Promise<Program> {
  const row = await deps.db.knex('programs').where({ id }).first();
  if (!row || row.status === 'DELETED') throw new NotFoundError(`No program ${id.slice(0, 64)}.`);
  const program = toProgram(row);
  if (program.type !== 'AFFILIATE') throw new WrongProgramTypeError(`Program ${program.id} is a ${program.type.toLowerCase()} program; payouts are for affiliate programs.`);
  return program;
}

function line(p: Payout): string {
  const money = `${p.amount} ${p.currencyISO}`;
  return `${p.id}  ${p.status.padEnd(8)}  ${money.padStart(14)}  participant=${p.participantId}  provider=${p.provider ?? '-'}  created=${new Date(p.createdAt).toISOString()}`;
}

/** Runs `payouts list|run|export|mark`; returns the exit code. */
export async function payoutsCommand(cmd: string, arg: string | undefined, values: Values, deps: Deps, out: Out, help: string): Promise<number> {
  if (typeof values.program !== 'string' || !values.program) return usage(out, 'Missing --program.', help);
  let status: Payout['status'] | undefined;
  if (values.status !== undefined && cmd !== 'payouts mark') {
    const parsed = payoutStatus.safeParse(String(values.status).toUpperCase());
    if (!parsed.success) return usage(out, `Unknown --status ${String(values.status)}: use ${payoutStatus.options.join(', ')}.`, help);
    status = parsed.data;
  }
  switch (cmd) {
    case 'payouts list': {
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) return usage(out, '--limit takes a positive whole number.', help);
      const program = await affiliateProgram(deps, values.program);
      const participant = typeof values.participant === 'string' ? values.participant : undefined;
      const payouts: Payout[] = [];
      let nextId: string | undefined;
      do {
        const page = await deps.payouts.list(program, { limit: Math.min(100, limit - payouts.length), status, nextId }, participant);
        payouts.push(...page.payouts);
        nextId = page.nextId ?? undefined;
      } while (nextId && payouts.length < limit);
      if (values.json) out.log(JSON.stringify(payouts, null, 2));
      else if (payouts.length === 0) out.log('No payouts.');
      else for (const p of payouts) out.log(line(p));
      return 0;
    }
    case 'payouts run': {
      const result = await deps.payouts.run(await affiliateProgram(deps, values.program));
      if (values.json) out.log(JSON.stringify(result, null, 2));
      else {
        out.log(`${result.payoutsCreated} payout${result.payoutsCreated === 1 ? '' : 's'} created.`);
        for (const p of result.payouts) out.log(line(p));
      }
      return 0;
    }
    case 'payouts export': {
      const format = (values.format === undefined ? 'generic' : String(values.format).toLowerCase()) as ExportFormat;
      if (!EXPORT_FORMATS.includes(format)) return usage(out, `Unknown --format ${String(values.format)}: use ${EXPORT_FORMATS.join(', ')}.`, help);
      const currency = values.currency === undefined ? undefined : String(values.currency).toUpperCase();
      if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) return usage(out, '--currency takes a three-letter ISO 4217 code.', help);
      const batch = await deps.payouts.exportBatch(await affiliateProgram(deps, values.program), { status, format, currency });
      // Batch files carry affiliates' emails: written readable by the owner only.
      if (typeof values.out === 'string') {
        await writeFile(values.out, batch.body, { mode: 0o600 });
        out.error(`Wrote ${batch.payoutIds.length} payout${batch.payoutIds.length === 1 ? '' : 's'} to ${values.out} (${format}).`);
      } else out.log(batch.body.replace(/\r\n$/, ''));
      for (const s of batch.skipped) out.error(`Left out ${s.payoutId}: ${s.reason}.`);
      return 0;
    }
    case 'payouts mark': {
      if (!arg) return usage(out, 'Missing PAYOUT.', help);
      const parsed = payoutStatusChange.shape.status.safeParse(String(values.status ?? '').toUpperCase());
      if (!parsed.success) return usage(out, values.status === undefined ? 'Missing --status.' : `Unknown --status ${String(values.status)}: use QUEUED, ISSUED, FAILED or REVERSED.`, help);
      const reason = typeof values.reason === 'string' ? values.reason.trim() : undefined;
      if (reason !== undefined && (reason.length === 0 || reason.length > 500)) return usage(out, '--reason takes 1 to 500 characters.', help);
      const payout = await deps.payouts.setStatus(await affiliateProgram(deps, values.program), arg, parsed.data, reason);
      if (values.json) out.log(JSON.stringify(payout, null, 2));
      else out.log(`Payout ${payout.id} is ${payout.status}.`);
      return 0;
    }
  }
  return 2;
}
