import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { newId } from './crypto.ts';

/**
 * Where uploaded files live. Uploads are first streamed to a local temp file (size cap, content
 * sniffing) and then handed over with `putFile`, so an S3-compatible store only has to implement
 * these calls; the temp directory stays local in every implementation.
 */
export interface BlobStorage {
  /** A fresh path for a temp file; the caller writes it and either `putFile`s or `discard`s it. */
  tempFile(): Promise<string>;
  /** Moves a finished temp file into the store under `key` (the temp file is gone afterwards). */
  putFile(key: string, tempPath: string, contentType: string): Promise<void>;
  /** Opens a stored file, or null when it does not exist. */
  read(key: string): Promise<{ stream: Readable; bytes: number } | null>;
  /** True when a stored file exists. */
  exists(key: string): Promise<boolean>;
  /** Deletes a stored file; a missing file is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes a temp file if it is still there. */
  discard(tempPath: string): Promise<void>;
}

// Keys are ours (ids and slashes), never user input; anything else is a bug, so it throws.
const KEY = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_.-]*)*$/;

/** Files on the local disk under one root (`${DATA_DIR}/uploads`); temp files in its `.tmp` folder so moves are renames. */
export class LocalDiskStorage implements BlobStorage {
  readonly root: string;
  readonly tempDir: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.tempDir = path.join(this.root, '.tmp');
  }

  /** The file path of a key (exposed for operators and tests). */
  pathOf(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error(`Invalid storage key: ${key}`);
    return path.join(this.root, ...key.split('/'));
  }

  async tempFile(): Promise<string> {
    // Created lazily so an installation that never uploads has no uploads folder.
    await fs.promises.mkdir(this.tempDir, { recursive: true });
    return path.join(this.tempDir, `${newId()}.part`);
  }

  async putFile(key: string, tempPath: string): Promise<void> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.rename(tempPath, target);
  }

  async read(key: string): Promise<{ stream: Readable; bytes: number } | null> {
    const file = this.pathOf(key);
    try {
      const handle = await fs.promises.open(file, 'r');
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), bytes: size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fs.promises.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async discard(tempPath: string): Promise<void> {
    if (path.dirname(path.resolve(tempPath)) !== this.tempDir) throw new Error('Not a temp file of this storage.');
    await fs.promises.rm(tempPath, { force: true });
  }
}
