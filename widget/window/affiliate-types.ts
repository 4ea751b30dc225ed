// Shapes of the affiliate-side participant operations (issue #6), taken from the shared schemas as
// types only.
import type { z } from 'zod';
import type { commissionList } from '../../shared/schemas/commission.ts';
import type { affiliateSummary, payoutList } from '../../shared/schemas/payout.ts';
import type { applicationForm, applicationSubmit, applicationSubmitted, mobilePayoutConfirmationRequested, payoutDestinationStatus, taxSession } from '../../shared/schemas/affiliate.ts';

/** MAF1 answer (rest-v2 §2.12 items). */
export type CommissionList = z.infer<typeof commissionList>;
/** MAF3 answer (rest-v2 §2.13 items). */
export type PayoutList = z.infer<typeof payoutList>;
/** MAF5 answer: minor units of the program currency plus unread counts. */
export type AffiliateSummary = z.infer<typeof affiliateSummary>;
/** MPD1 answer (rest-v2 §2.34 P14). */
export type PayoutDestination = z.infer<typeof payoutDestinationStatus>;
/** MPD2 answer (P15 plus success). */
export type PayoutConfirmation = z.infer<typeof mobilePayoutConfirmationRequested>;
/** MTX1 answer: the hosted tax page and the new status. */
export type TaxSession = z.infer<typeof taxSession>;
/** The public affiliate application form. */
export type ApplicationForm = z.infer<typeof applicationForm>;
/** One question of it. */
export type ApplicationField = ApplicationForm['questions'][number];
/** The application as submitted. */
export type ApplicationInput = z.input<typeof applicationSubmit>;
/** What a submission did. */
export type ApplicationResult = z.infer<typeof applicationSubmitted>;
