import fs from 'node:fs';
import { PAGE_POLICY } from './page-policy.ts';
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type Koa from 'koa';
import type { Deps } from './deps.ts';
import type { BlobStorage } from '../storage.ts';
import { ContentInspector, type FileKind } from '../domain/programs/resource-files.ts';
import { AppError, NotAuthorizedError, NotFoundError, ValidationError } from '../errors.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { MAX_RESOURCE_FILE_BYTES } from '../../shared/schemas/resource.ts';

/** Where R5's `uploadUrl` points: outside /v2, because the one-time ticket is the credential, not an API key. */
export const UPLOAD_PATH = '/uploads/resource';

// Room for the multipart framing and the text fields on top of the file itself; past this the
// connection is cut rather than read on.
const MAX_REQUEST_BYTES = MAX_RESOURCE_FILE_BYTES + 256 * 1024;

const tooLarge = () => new ValidationError(`A resource file is at most ${MAX_RESOURCE_FILE_BYTES} bytes (10 MiB).`, [{ field: 'file', code: 'TOO_LARGE', message: 'The file is larger than 10 MiB.' }], ERROR_CODES.BODY_TOO_LARGE);

interface Received {
  fields: Map<string, string>;
  file: { tempPath: string; bytes: number; kind: FileKind | null } | null;
  error: AppError | null;
}

/**
 * Streams one multipart body: text fields into memory (small caps), the `file` part into a temp file
 * while inspecting its bytes. Never rejects: failures come back as `error`, with whatever temp file
 * was started, so the caller can always delete it.
 */
function receiveMultipart(req: IncomingMessage, storage: BlobStorage): Promise<Received> {
  return new Promise((resolve) => {
    const out: Received = { fields: new Map(), file: null, error: null };
    const fail = (e: AppError) => {
      out.error ??= e;
    };
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: MAX_RESOURCE_FILE_BYTES, files: 1, fields: 20, fieldSize: 4096, fieldNameSize: 100, parts: 21 } });
    } catch {
      fail(new ValidationError('The multipart body is malformed (missing boundary).'));
      resolve(out);
      return;
    }
    let fileDone: Promise<void> = Promise.resolve();
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      void fileDone.then(() => resolve(out));
    };

    bb.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) fail(new ValidationError(`The form field ${name.slice(0, 100)} is too long.`));
      else out.fields.set(name, value);
    });
    bb.on('file', (name, stream: Readable & { truncated?: boolean }) => {
      if (name !== 'file' || out.file) {
        fail(new ValidationError('Send exactly one file, in the form field "file".', [{ field: name.slice(0, 100), code: 'INVALID', message: 'Unexpected file field.' }]));
        stream.resume();
        return;
      }
      const file = { tempPath: '', bytes: 0, kind: null as FileKind | null };
      out.file = file;
      const inspector = new ContentInspector();
      const inspect = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          inspector.push(chunk);
          cb(null, chunk);
        },
      });
      fileDone = (async () => {
        file.tempPath = await storage.tempFile();
        await pipeline(stream, inspect, fs.createWriteStream(file.tempPath, { flags: 'wx' }));
        if (stream.truncated) return fail(tooLarge());
        file.bytes = inspector.bytes;
        file.kind = inspector.finish();
      })().catch(() => fail(new ValidationError('The upload did not complete.')));
    });
    bb.on('filesLimit', () => fail(new ValidationError('Send exactly one file, in the form field "file".')));
    bb.on('fieldsLimit', () => fail(new ValidationError('Too many form fields.')));
    bb.on('partsLimit', () => fail(new ValidationError('Too many form parts.')));
    bb.on('error', () => {
      fail(new ValidationError('The multipart body is malformed.'));
      finish();
    });
    bb.on('close', finish);

    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > MAX_REQUEST_BYTES && !settled) {
        fail(tooLarge());
        req.unpipe(bb);
        bb.destroy();
        req.destroy();
        finish();
      }
    });
    req.on('close', () => {
      if (!req.complete && !settled) {
        fail(new ValidationError('The upload was interrupted.'));
        req.unpipe(bb);
        bb.destroy();
        finish();
      }
    });
    req.pipe(bb);
  });
}

/** RFC 6266 attachment header with an ASCII fallback and the exact UTF-8 name. */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** `POST /uploads/resource`: receives one file for an upload ticket and answers the ProgramResourceUploadResult. */
async function upload(ctx: Koa.Context, deps: Deps): Promise<void> {
  await deps.limits.guardIp(ctx.ip, (headers) => ctx.set(headers), async () => {
    if (!ctx.is('multipart/form-data')) {
      throw new ValidationError('Send multipart/form-data: the upload parameters as text fields and the file as the field "file".');
    }
    if (Number(ctx.get('content-length') || 0) > MAX_REQUEST_BYTES) {
      ctx.set('Connection', 'close');
      throw tooLarge();
    }
    const received = await receiveMultipart(ctx.req, deps.storage);
    try {
      if (received.error) throw received.error;
      if (!received.file) throw new ValidationError('No file was sent.', [{ field: 'file', code: 'REQUIRED', message: 'Required.' }]);
      const result = await deps.resources.completeUpload({
        ticket: received.fields.get('ticket') ?? '',
        tempPath: received.file.tempPath,
        bytes: received.file.bytes,
        kind: received.file.kind,
      });
      ctx.status = 200;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = result;
    } finally {
      // Stored files were moved away already; anything left is a failed upload's remains.
      if (received.file?.tempPath) await deps.storage.discard(received.file.tempPath);
    }
  });
}

/** `GET /files/resources/:resourceId?exp&sig`: streams a published resource file to whoever holds a valid signed link. */
async function download(ctx: Koa.Context, deps: Deps, resourceId: string): Promise<void> {
  const pub = await deps.limits.chargeIp(ctx.ip);
  if (pub.error) throw pub.error;
  const exp = typeof ctx.query.exp === 'string' ? ctx.query.exp : '';
  const sig = typeof ctx.query.sig === 'string' ? ctx.query.sig : '';
  // The signature is checked first, so a link-less caller learns nothing about which resources exist.
  if (!deps.resources.verifyDownload(resourceId, exp, sig)) throw new NotAuthorizedError('This download link is invalid or has expired; request a new one.');
  const file = await deps.resources.fileForDownload(resourceId);
  if (!file) throw new NotFoundError('This resource is not available for download.');
  const opened = await deps.storage.read(file.key);
  if (!opened) throw new NotFoundError('This resource is not available for download.');
  ctx.status = 200;
  ctx.type = file.mimeType;
  ctx.length = opened.bytes;
  ctx.set('Content-Disposition', attachment(file.fileName));
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('Content-Security-Policy', PAGE_POLICY.download);
  ctx.body = opened.stream;
}

/**
 * The upload destination of R5 tickets and the signed download links of resource files, both outside
 * /v2. `/files/uploads/:publicId` is the `secure_url` of an upload: the asset is private
 * (`type: authenticated`), so it only ever answers 403.
 */
export function uploadEndpoint(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path === UPLOAD_PATH) {
      if (ctx.method !== 'POST') throw new NotFoundError(`No operation ${ctx.method} ${ctx.path}.`);
      return upload(ctx, deps);
    }
    if (ctx.method !== 'GET' || !ctx.path.startsWith('/files/')) return next();
    const file = /^\/files\/resources\/([^/]{1,200})$/.exec(ctx.path);
    if (file) {
      let id: string;
      try {
        id = decodeURIComponent(file[1]!);
      } catch {
        throw new NotFoundError('No such file.');
      }
      return download(ctx, deps, id);
    }
    if (/^\/files\/uploads\/[^/]{1,200}$/.test(ctx.path)) {
      throw new NotAuthorizedError('Uploaded files are private; participants download published resources through signed links.');
    }
    return next();
  };
}
