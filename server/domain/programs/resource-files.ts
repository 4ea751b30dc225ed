// What an uploaded file really is: the content each allowlisted extension may carry, sniffing by magic
// number, and the inspector that watches an upload stream without buffering it.

/** What a file's first bytes say it is; `text` means the whole file was UTF-8 without NULs. */
export type FileKind = 'jpeg' | 'png' | 'gif' | 'webp' | 'pdf' | 'zip' | 'ole' | 'text';

// Each allowlisted extension (rest-v2 §3.3) and the only content it may carry. Office Open XML files
// are ZIP containers and the old Office formats OLE compound files, so the header is all we check.
export const KIND_OF_EXTENSION: Record<string, FileKind> = {
  jpg: 'jpeg',
  jpeg: 'jpeg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  pdf: 'pdf',
  zip: 'zip',
  docx: 'zip',
  xlsx: 'zip',
  pptx: 'zip',
  doc: 'ole',
  xls: 'ole',
  ppt: 'ole',
  csv: 'text',
};
export const IMAGE_KINDS = new Set<FileKind>(['jpeg', 'png', 'gif', 'webp']);

/** Bytes of a file head worth keeping for sniffing. */
export const SNIFF_BYTES = 16;

const startsWith = (head: Buffer, bytes: number[], at = 0) => head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);

/** Identifies a file by its magic number (never by its name or declared type). */
export function sniffFileKind(head: Buffer, utf8Text: boolean): FileKind | null {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'gif';
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'pdf';
  // Local file header, or the end-of-central-directory record of an empty archive.
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'ole';
  return utf8Text ? 'text' : null;
}

/**
 * Watches a file as it streams past: keeps its first bytes and whether all of it is valid UTF-8
 * without NUL bytes (what a CSV must be), without buffering the file.
 */
export class ContentInspector {
  #head = Buffer.alloc(0);
  #decoder = new TextDecoder('utf-8', { fatal: true });
  #text = true;
  bytes = 0;

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.#head.length < SNIFF_BYTES) this.#head = Buffer.concat([this.#head, chunk.subarray(0, SNIFF_BYTES - this.#head.length)]);
    if (!this.#text) return;
    if (chunk.includes(0)) {
      this.#text = false;
      return;
    }
    try {
      this.#decoder.decode(chunk, { stream: true });
    } catch {
      this.#text = false;
    }
  }

  /** The file's kind once every byte has been pushed. */
  finish(): FileKind | null {
    if (this.#text) {
      try {
        this.#decoder.decode();
      } catch {
        this.#text = false;
      }
    }
    return sniffFileKind(this.#head, this.#text && this.bytes > 0);
  }
}
