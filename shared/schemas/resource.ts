import { z } from 'zod';
import { epochMs } from './common.ts';

// Program resources (rest-v2 §2.23, §3.3). The limits are the MCP+ client's; we enforce them on the
// server so every client gets the same answer.

/** The largest resource file we accept (10 MiB), checked at ticket time and again on upload. */
export const MAX_RESOURCE_FILE_BYTES = 10 * 1024 * 1024;
/** An upload ticket is good for this many seconds (`expiresIn` of R5). */
export const UPLOAD_TICKET_TTL_SECONDS = 600;
/** Positions are 0–99, so a program holds at most this many resources. */
export const MAX_RESOURCES_PER_PROGRAM = 100;

/**
 * The file allowlist of rest-v2 §3.3: extension → accepted declared MIME types. The server checks the
 * bytes (not the name or the declared type) against the extension when the file arrives.
 */
export const RESOURCE_FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  jpg: ['image/jpeg', 'image/jpg'],
  jpeg: ['image/jpeg', 'image/jpg'],
  png: ['image/png'],
  gif: ['image/gif'],
  webp: ['image/webp'],
  pdf: ['application/pdf'],
  csv: ['text/csv', 'application/csv', 'text/plain'],
  zip: ['application/zip', 'application/x-zip-compressed'],
  doc: ['application/msword', 'application/x-ole-storage'],
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  xls: ['application/vnd.ms-excel', 'application/x-ole-storage'],
  xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ppt: ['application/vnd.ms-powerpoint', 'application/x-ole-storage'],
  pptx: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
};

/** The lower-cased extension of a file name, or '' when it has none. */
export function fileExtension(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** Resource kinds. */
export const programResourceType = z.enum(['FILE', 'LINK', 'TEXT']);
/** File moderation states; we approve a file when its bytes pass the upload checks. */
export const moderationStatus = z.enum(['PENDING', 'APPROVED', 'REJECTED']);

/** `ProgramResourceFile`: the stored file behind a FILE resource. */
export const programResourceFile = z
  .object({
    fileName: z.string(),
    mimeType: z.string(),
    bytes: z.number().int(),
    format: z.string(),
    moderationStatus,
  })
  .meta({ id: 'ProgramResourceFile' });

/** `ProgramResource` as the API returns it: every key present, content fields null unless they match `type`. */
export const programResource = z
  .object({
    id: z.string(),
    type: programResourceType,
    title: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable(),
    url: z.string().nullable(),
    text: z.string().nullable(),
    file: programResourceFile.nullable(),
    isPublished: z.boolean(),
    position: z.number().int(),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'ProgramResource' });

/** R1 response. */
export const programResourceList = z.object({ resources: z.array(programResource) }).meta({ id: 'ProgramResourceListResponse' });

/** R4 response. */
export const deleteProgramResourceResponse = z.object({ id: z.string(), success: z.literal(true) }).meta({ id: 'DeleteProgramResourceResponse' });

/**
 * `ProgramResourceUploadResult`: our upload endpoint's reply, sent back unmodified on R2/R3. Extra
 * provider keys pass through (the 1 MiB body cap bounds them); the server compares the named keys
 * with what it stored and never trusts the client's copy. `secure_url` may be http:// only when the
 * installation itself runs on plain HTTP (ALLOW_HTTP_PUBLIC_URL).
 */
export const programResourceUploadResult = z
  .object({
    public_id: z.string().min(1).max(255),
    version: z.number().int().min(1),
    signature: z.string().min(1).max(255),
    resource_type: z.enum(['image', 'raw']),
    type: z.literal('authenticated'),
    bytes: z.number().int().min(1).max(MAX_RESOURCE_FILE_BYTES),
    secure_url: z.url({ protocol: /^https?$/ }).max(2048),
    asset_id: z.string().max(255).optional(),
    format: z.string().max(32).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'ProgramResourceUploadResult' });

const title = z.string().trim().min(1).max(120);
// Empty optional strings mean "none", so they are stored as null.
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .optional()
    .transform((v) => (v === '' ? null : v));
// Content fields: null is the same as absent (some generated clients serialise unset fields as null).
const url = z.url({ protocol: /^https$/, message: 'Must be an https:// URL.' }).max(2048).nullable().optional();
const text = z.string().min(1).max(5000).nullable().optional();
const uploadTicket = z.string().min(20).max(200).nullable().optional();
const uploadResult = programResourceUploadResult.nullable().optional();

type Content = { type?: 'FILE' | 'LINK' | 'TEXT'; url?: string | null; text?: string | null; uploadTicket?: string | null; uploadResult?: unknown };

/** Which content groups a body carries: LINK (`url`), TEXT (`text`), FILE (`uploadTicket` + `uploadResult`). */
export function contentGroups(b: Content): Array<'FILE' | 'LINK' | 'TEXT'> {
  const groups: Array<'FILE' | 'LINK' | 'TEXT'> = [];
  if (b.url != null) groups.push('LINK');
  if (b.text != null) groups.push('TEXT');
  if (b.uploadTicket != null || b.uploadResult != null) groups.push('FILE');
  return groups;
}

const FIELDS_OF = { LINK: ['url'], TEXT: ['text'], FILE: ['uploadTicket', 'uploadResult'] } as const;

/**
 * Exactly one content group, matching `type` when `type` is sent (rest-v2 §3.3). `type` without its
 * content is rejected on update too, as the newest TS client does (§6.2 #24).
 */
function checkContent(b: Content, ctx: z.core.$RefinementCtx<unknown>): void {
  const required = (field: string, message: string) => ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [field], message });
  if ((b.uploadTicket != null) !== (b.uploadResult != null)) {
    const missing = b.uploadTicket == null ? 'uploadTicket' : 'uploadResult';
    required(missing, 'uploadTicket and uploadResult are sent together.');
  }
  const groups = contentGroups(b);
  if (b.type) {
    for (const g of groups) {
      if (g !== b.type) ctx.addIssue({ code: 'custom', path: [FIELDS_OF[g][0]], message: `Only a ${g} resource has ${FIELDS_OF[g].join(' and ')}; this one is ${b.type}.` });
    }
    if (!groups.includes(b.type)) {
      for (const f of FIELDS_OF[b.type]) required(f, `A ${b.type} resource needs ${FIELDS_OF[b.type].join(' and ')}.`);
    }
  } else if (groups.length > 1) {
    for (const g of groups) ctx.addIssue({ code: 'custom', path: [FIELDS_OF[g][0]], message: 'Send the content of one resource type only.' });
  }
}

/** R2 body. */
export const programResourceCreate = z
  .strictObject({
    type: programResourceType,
    title,
    description: optionalText(500),
    category: optionalText(60),
    isPublished: z.boolean().optional(),
    url,
    text,
    uploadTicket,
    uploadResult,
  })
  .superRefine(checkContent)
  .meta({ id: 'ProgramResourceCreate' });

/** R3 body: any field of R2 plus `position` (0–99, within the current list); at least one. */
export const programResourceUpdate = z
  .strictObject({
    type: programResourceType.optional(),
    title: title.optional(),
    description: optionalText(500),
    category: optionalText(60),
    isPublished: z.boolean().optional(),
    url,
    text,
    uploadTicket,
    uploadResult,
    position: z.number().int().min(0).max(MAX_RESOURCES_PER_PROGRAM - 1).optional(),
  })
  .superRefine((b, ctx) => {
    if (Object.values(b).every((v) => v === undefined)) ctx.addIssue({ code: 'custom', path: [], message: 'Send at least one field to change.' });
    checkContent(b, ctx);
  })
  .meta({ id: 'ProgramResourceUpdate' });

/** A file name as R5 accepts it: a base name with an allowlisted extension. */
const fileName = z
  .string()
  .min(1)
  .max(120)
  .refine((s) => !/[/\\\u0000-\u001f\u007f]/.test(s), { message: 'Send a base name without path separators or control characters.' })
  .refine((s) => fileExtension(s) in RESOURCE_FILE_TYPES, { message: `The extension must be one of ${Object.keys(RESOURCE_FILE_TYPES).join(', ')}.` });

/** R5 body; the MIME type must be one the §3.3 allowlist pairs with the name's extension. */
export const programResourceUploadTicketCreate = z
  .strictObject({
    fileName,
    mimeType: z
      .string()
      .min(1)
      .max(255)
      .transform((s) => s.split(';')[0]!.trim().toLowerCase()),
    bytes: z.number().int().min(1).max(MAX_RESOURCE_FILE_BYTES, { message: `A resource file is at most ${MAX_RESOURCE_FILE_BYTES} bytes (10 MiB).` }),
  })
  .superRefine((b, ctx) => {
    const allowed = RESOURCE_FILE_TYPES[fileExtension(b.fileName)];
    if (allowed && !allowed.includes(b.mimeType)) {
      ctx.addIssue({ code: 'custom', path: ['mimeType'], message: `A .${fileExtension(b.fileName)} file is sent as ${allowed.join(' or ')}.` });
    }
  })
  .meta({ id: 'ProgramResourceUploadTicketCreate' });

/** R5 response: `expiresIn` is in seconds; `uploadParameters` go with the file as multipart text fields. */
export const programResourceUploadTicket = z
  .object({
    ticket: z.string(),
    expiresIn: z.number().int(),
    uploadUrl: z.string(),
    uploadParameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  })
  .meta({ id: 'ProgramResourceUploadTicket' });

export type ProgramResource = z.infer<typeof programResource>;
export type ProgramResourceCreate = z.infer<typeof programResourceCreate>;
export type ProgramResourceUpdate = z.infer<typeof programResourceUpdate>;
export type ProgramResourceUploadResult = z.infer<typeof programResourceUploadResult>;
export type ProgramResourceUploadTicketCreate = z.infer<typeof programResourceUploadTicketCreate>;
export type ProgramResourceUploadTicket = z.infer<typeof programResourceUploadTicket>;
