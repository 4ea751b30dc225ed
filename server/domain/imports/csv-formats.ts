import type { Commission } from '../../../shared/schemas/commission.ts';

// The columns of the exports `refloop import csv` reads (docs/migrating.md, "From Rewardful,
// FirstPromoter and Tolt exports"). None of the three products documents its CSV columns, so each
// field lists the names their dashboards and APIs use for it; headers compare by letters and digits
// only ("First Name", "first_name" and "firstName" are one column).

/** The products whose exports are read, and `generic` (a column map). */
export const CSV_FORMATS = ['rewardful', 'firstpromoter', 'tolt', 'generic'] as const;
/** One of `CSV_FORMATS`. */
export type CsvFormat = (typeof CSV_FORMATS)[number];
/** What a file holds: affiliates, their referred customers, commissions (with their sales), or sales alone. */
export const FILE_KINDS = ['affiliates', 'referrals', 'commissions', 'sales'] as const;
/** One of `FILE_KINDS`. */
export type FileKind = (typeof FILE_KINDS)[number];

/** The fields read from a file, by kind. */
export type Field =
  | 'id'
  | 'email'
  | 'firstName'
  | 'lastName'
  | 'name'
  | 'affiliateEmail'
  | 'affiliateId'
  | 'customerEmail'
  | 'customerId'
  | 'saleId'
  | 'amount'
  | 'amountCents'
  | 'saleAmount'
  | 'saleAmountCents'
  | 'currency'
  | 'status'
  | 'paid'
  | 'createdAt'
  | 'paidAt';

/** A header as compared: lower case, letters and digits only. */
export function headerKey(h: string): string {
  return h.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const PERSON = { email: ['email', 'emailaddress'], firstName: ['firstname', 'first'], lastName: ['lastname', 'last', 'surname'], name: ['name', 'fullname'] };
const AFFILIATE_REF = { affiliateEmail: ['affiliateemail', 'promoteremail', 'partneremail', 'affiliate', 'promoter', 'partner'], affiliateId: ['affiliateid', 'promoterid', 'partnerid'] };
const DATES = { createdAt: ['createdat', 'created', 'date', 'saledate', 'chargedat', 'invoicedat', 'joinedat', 'signedupat', 'customersince'] };

/** Accepted header names of each field, in order of preference, per kind. */
export const COLUMNS: Record<FileKind, Partial<Record<Field, string[]>>> = {
  affiliates: { id: ['id', 'affiliateid', 'promoterid', 'partnerid'], ...PERSON, email: ['email', 'emailaddress', 'affiliateemail', 'promoteremail', 'partneremail'], ...DATES },
  referrals: {
    id: ['id', 'referralid', 'leadid', 'customerid'],
    ...PERSON,
    email: ['customeremail', 'referralemail', 'leademail', 'email', 'emailaddress'],
    name: ['customername', 'name', 'fullname'],
    ...AFFILIATE_REF,
    ...DATES,
  },
  commissions: {
    id: ['commissionid', 'id'],
    saleId: ['saleid', 'transactionid', 'eventid', 'chargeid', 'invoiceid', 'orderid'],
    amount: ['commissionamount', 'commission', 'amount', 'rewardamount', 'reward'],
    amountCents: ['commissionamountcents', 'amountcents'],
    saleAmount: ['saleamount', 'revenue', 'originalsaleamount', 'chargeamount'],
    saleAmountCents: ['saleamountcents', 'chargeamountcents', 'revenuecents'],
    currency: ['currency', 'currencycode', 'salecurrency', 'originalsalecurrency'],
    status: ['status', 'state', 'commissionstatus', 'commissionstate'],
    paid: ['paid', 'ispaid'],
    customerEmail: ['customeremail', 'referralemail', 'leademail', 'customer', 'referral', 'lead'],
    customerId: ['customerid', 'referralid', 'leadid'],
    name: ['customername'],
    ...AFFILIATE_REF,
    createdAt: ['createdat', 'created', 'date', 'commissiondate', 'saledate', 'chargedat'],
    paidAt: ['paidat', 'datepaid', 'voidedat'],
  },
  sales: {
    saleId: ['transactionid', 'saleid', 'id', 'chargeid', 'invoiceid', 'orderid'],
    saleAmount: ['amount', 'saleamount', 'revenue', 'total'],
    saleAmountCents: ['amountcents', 'saleamountcents', 'revenuecents'],
    currency: ['currency', 'currencycode'],
    customerEmail: ['customeremail', 'referralemail', 'leademail', 'email', 'customer'],
    customerId: ['customerid', 'referralid', 'leadid'],
    name: ['customername'],
    ...AFFILIATE_REF,
    createdAt: ['createdat', 'created', 'date', 'saledate', 'chargedat', 'paidat'],
  },
};

/** Kinds in the order files are recognised (the most specific first) and imported (people before money). */
export const DETECT_ORDER: FileKind[] = ['commissions', 'sales', 'referrals', 'affiliates'];
/** Kinds in the order their rows are imported: affiliates, then who they referred, then money. */
export const IMPORT_ORDER: FileKind[] = ['affiliates', 'referrals', 'commissions', 'sales'];

/** Which fields a file must have to be of a kind (any one of each inner list). */
export const REQUIRED: Record<FileKind, Field[][]> = {
  commissions: [['amount', 'amountCents'], ['saleAmount', 'saleAmountCents'], ['customerEmail', 'customerId']],
  sales: [['saleId'], ['saleAmount', 'saleAmountCents'], ['customerEmail', 'customerId']],
  referrals: [['email'], ['affiliateEmail', 'affiliateId']],
  affiliates: [['email']],
};

/** The products' commission states in ours (lower-cased). Pending stays PENDING, due and approved APPROVED, voided and refunded REVERSED, denied and rejected DELETED. */
export const STATES: Record<string, Commission['status']> = {
  pending: 'PENDING',
  due: 'APPROVED',
  approved: 'APPROVED',
  unpaid: 'APPROVED',
  paid: 'PAID',
  voided: 'REVERSED',
  void: 'REVERSED',
  refunded: 'REVERSED',
  reversed: 'REVERSED',
  denied: 'DELETED',
  rejected: 'DELETED',
  declined: 'DELETED',
};

/** The `--map` keys of `generic` and the field each fills (`referredBy` is the affiliate's email). */
export const GENERIC_KEYS: Record<string, Field> = {
  email: 'email',
  firstName: 'firstName',
  lastName: 'lastName',
  name: 'name',
  referredBy: 'affiliateEmail',
  saleId: 'saleId',
  saleAmount: 'saleAmount',
  commissionAmount: 'amount',
  currency: 'currency',
  status: 'status',
  date: 'createdAt',
};
