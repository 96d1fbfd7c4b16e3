import { open } from "node:fs/promises";
import { extname } from "node:path";

/** Image types the `read` tool returns as image content. */
export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** How many bytes of a file are sniffed to tell images, binary files and text apart. */
export const SNIFF_BYTES = 8192;

const IMAGE_EXTENSIONS: Readonly<Record<string, ImageMimeType>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The image type announced by a file name's extension, if it is one `read` supports. */
export function imageTypeFromExtension(path: string): ImageMimeType | undefined {
  return IMAGE_EXTENSIONS[extname(path).toLowerCase()];
}

/** The image type given by a file's first bytes (its magic number), if it is one `read` supports. */
export function imageTypeFromContent(head: Uint8Array): ImageMimeType | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (
    startsWith(head, [0x47, 0x49, 0x46, 0x38]) &&
    (head[4] === 0x37 || head[4] === 0x39) &&
    head[5] === 0x61
  ) {
    return "image/gif";
  }
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && ascii(head, 8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/**
 * Whether a file's first bytes look like binary data rather than text: a NUL byte, or more than 10% of
 * control characters other than tab, newline, carriage return, form feed and escape.
 */
export function looksBinary(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  if (head.indexOf(0) !== -1) return true;
  let control = 0;
  for (let index = 0; index < head.length; index++) {
    const byte = head[index]!;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) {
      control++;
    }
  }
  return control / head.length > 0.1;
}

/** The first `length` bytes of a file (fewer when the file is shorter). */
export async function readHead(path: string, length = SNIFF_BYTES): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  if (bytes.length < prefix.length) return false;
  return prefix.every((byte, index) => bytes[index] === byte);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}
