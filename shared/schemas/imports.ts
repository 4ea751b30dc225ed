import { z } from 'zod';

// Moving a program in from a server that speaks the GrowSurf v2 REST API, from the console (issue
// #33 part 5; refloop extensions): list the source's programs, start an import (or its dry run) that
// runs as a background job, read its progress, its refusals as CSV, and its webhook secrets once.

/** The record kinds an import counts and refuses. */
export const IMPORT_KINDS = [
  'program',
  'documents',
  'rewards',
  'webhooks',
  'resources',
  'participants',
  'issuedRewards',
  'invites',
  'payouts',
  'commissions',
  'affiliateInvites',
  'applications',
  'destinations',
  'activity',
] as const;

const sourceFields = {
  sourceUrl: z.string().max(2048).default('https://api.growsurf.com/v2').meta({ description: 'The source’s API base (default GrowSurf’s, https://api.growsurf.com/v2); `/v2` is added when missing. It must reach a public address.' }),
  apiKey: z.string().min(1, { error: 'Enter an API key of the source.' }).max(512).meta({ description: 'An API key of the source team. Stored sealed while the import runs, deleted when it ends; never returned.' }),
};

/** `POST /imports/growsurf/programs`: the source and its key. */
export const importSourceBody = z.strictObject(sourceFields).meta({ id: 'ImportSourceRequest' });
export type ImportSourceBody = z.infer<typeof importSourceBody>;

/** One program of the source, as the picker lists it. */
export const importSourceProgram = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    status: z.string(),
    participantCount: z.number().int().nullable(),
    here: z.boolean().meta({ description: 'A program with this id already exists on this refloop (imported or not).' }),
  })
  .meta({ id: 'ImportSourceProgram' });
export type ImportSourceProgram = z.infer<typeof importSourceProgram>;

/** The source's programs (deleted ones left out). */
export const importSourcePrograms = z.object({ programs: z.array(importSourceProgram) }).meta({ id: 'ImportSourcePrograms' });
export type ImportSourcePrograms = z.infer<typeof importSourcePrograms>;

/** `POST /imports/growsurf`: the source, its key, the program and whether to only check. */
export const importStartBody = z
  .strictObject({
    ...sourceFields,
    programId: z.string().min(1, { error: 'Choose a program of the source.' }).max(64).regex(/^[A-Za-z0-9_-]+$/, { error: 'A program id is letters, digits, - and _.' }),
    dryRun: z.boolean().default(false).meta({ description: 'true: read and check everything, write nothing; the counts say what a real import would do.' }),
  })
  .meta({ id: 'ImportStartRequest' });
export type ImportStartBody = z.infer<typeof importStartBody>;

const kindCounts = z
  .object({ created: z.number().int(), skipped: z.number().int(), refused: z.number().int(), updated: z.number().int().optional().meta({ description: 'A catch-up run: records already here that it brought up to the source.' }) })
  .meta({ id: 'ImportKindCounts' });

/** An import's state as the progress page polls it. */
export const importProgress = z
  .object({
    programId: z.string(),
    name: z.string(),
    type: z.string(),
    dryRun: z.boolean(),
    status: z.enum(['QUEUED', 'RUNNING', 'DONE', 'FAILED']),
    stage: z.string().meta({ description: 'program, documents, rewards, webhooks, participants, referrals, payouts, commissions, affiliateInvites, applications, totals, links, done.' }),
    done: z.number().int().meta({ description: 'Records of the stage read so far.' }),
    total: z.number().int().nullable().meta({ description: 'What the source says there is (participants), when it says.' }),
    counts: z.record(z.enum(IMPORT_KINDS), kindCounts).meta({ description: 'Per record kind: created here, already here, refused (a dry run: what it would do).' }),
    refusalCount: z.number().int(),
    requests: z.number().int().meta({ description: 'Requests made to the source (at the end).' }),
    message: z.string().nullable().meta({ description: 'Why it waits or why it failed, in plain words.' }),
    webhookSecrets: z
      .array(z.object({ id: z.string(), secret: z.string() }).meta({ id: 'ImportWebhookSecret' }))
      .meta({ description: 'The new signing secret of each webhook the import brought in (switched off): answered once, to whoever started the import, once it has ended; then deleted.' }),
    startedAt: z.number().int(),
    finishedAt: z.number().int().nullable(),
  })
  .meta({ id: 'ImportProgress' });
export type ImportProgressView = z.infer<typeof importProgress>;

/** The refusals CSV: kind, source id, reason. */
export const importRefusalsQuery = z.strictObject({}).meta({ id: 'ImportRefusalsQuery' });
