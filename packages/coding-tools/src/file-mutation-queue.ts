import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Runs the mutations of one file one after another, so that parallel `edit`/`write` calls on the same
 * file never race (each read-modify-write sees the result of the previous one). Files are keyed by their
 * resolved real path, so `a.txt`, `./a.txt` and a symlink to it share one queue; different files run
 * concurrently. A key is forgotten as soon as its queue is empty.
 */
export class FileMutationQueue {
  readonly #tails = new Map<string, Promise<void>>();
  /** Keys are resolved one after another, so mutations queue in the order `run` was called. */
  #keys: Promise<unknown> = Promise.resolve();

  /**
   * Runs `mutation` once every mutation queued earlier (by an earlier `run` call) for the same file has
   * settled, and returns its result.
   *
   * Contract: `path` should be absolute (relative paths resolve against `process.cwd()`). A mutation
   * that rejects does not stop the queue: the next one runs, and the rejection reaches this call only.
   */
  async run<T>(path: string, mutation: () => Promise<T> | T): Promise<T> {
    const pendingKey = this.#keys.then(() => fileQueueKey(path));
    this.#keys = pendingKey;
    const key = await pendingKey;
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolveDone) => {
      release = resolveDone;
    });
    const tail = previous.then(() => done);
    this.#tails.set(key, tail);
    try {
      await previous;
      return await mutation();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** How many files have mutations queued or running. */
  get pendingFiles(): number {
    return this.#tails.size;
  }
}

/**
 * The key of a file in a {@link FileMutationQueue}: its real path when it exists, else the real path of
 * its nearest existing ancestor joined with the rest (a file about to be created).
 */
export async function fileQueueKey(path: string): Promise<string> {
  const absolute = resolve(path);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** The queue shared by every tool created with the default options (one per process). */
export const defaultFileMutationQueue: FileMutationQueue = new FileMutationQueue();

/**
 * Runs `mutation` in the shared {@link defaultFileMutationQueue}: after every earlier mutation of the
 * same file has settled. Use it when code outside the tools also writes files the tools edit.
 */
export function withFileQueue<T>(path: string, mutation: () => Promise<T> | T): Promise<T> {
  return defaultFileMutationQueue.run(path, mutation);
}
