/**
 * The bytes of batches encoded for appending and not yet written: one growable buffer, reused from
 * batch to batch, that each entry's JSON is encoded into as UTF-8 as soon as it is serialized. No
 * batch-sized string is built (nor kept alive while its sync runs), and batches that wait for the same
 * sync are written with one `write`.
 */

/** Capacity allocated first. */
const INITIAL_CAPACITY = 64 * 1024;
/** A buffer grown past this is given back once written (a huge batch does not pin its size). */
const KEPT_CAPACITY = 4 * 1024 * 1024;
/** Texts longer than this are measured exactly before room is made (instead of 3 bytes per unit). */
const MEASURED_LENGTH = 1024 * 1024;

/** A growable byte buffer holding encoded batches until they are written. */
export class AppendBuffer {
  /** The buffer; bytes `0..length` are the pending ones. */
  bytes: Buffer = Buffer.allocUnsafe(INITIAL_CAPACITY);
  /** Number of pending bytes. */
  length = 0;

  /** Appends `text` encoded as UTF-8. */
  text(text: string): void {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    const room = text.length > MEASURED_LENGTH ? Buffer.byteLength(text, "utf8") : text.length * 3;
    if (this.bytes.length - this.length < room) this.grow(room);
    this.length += this.bytes.write(text, this.length, "utf8");
  }

  /** Appends two bytes (a line's end). */
  pair(first: number, second: number): void {
    if (this.bytes.length - this.length < 2) this.grow(2);
    this.bytes[this.length++] = first;
    this.bytes[this.length++] = second;
  }

  /** Drops the pending bytes after `length` (a batch that failed to encode). */
  truncate(length: number): void {
    this.length = length;
  }

  /** Empties the buffer once its bytes are written; a buffer grown very large is given back. */
  clear(): void {
    this.length = 0;
    if (this.bytes.length > KEPT_CAPACITY) this.bytes = Buffer.allocUnsafe(INITIAL_CAPACITY);
  }

  private grow(room: number): void {
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + room));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}
