/**
 * `@path` mentions in a prompt: Tab completes a path of the project (its files as the coding tools list
 * them, `.gitignore` honoured), and when the prompt is sent each mentioned file is attached — its text read
 * by the coding tools' `read` tool (the same limits as the model's reads), images as image blocks.
 */
import type { ImageContent } from "@arbor/ai-providers";
import { createReadTool, listProjectFiles } from "@arbor/coding-tools";

/** A mention: `@` at the start or after whitespace, then a path without spaces. */
const MENTION = /(^|\s)@([^\s@]+)/g;

/** Most project files kept for completion. */
const MAX_LISTED_FILES = 20_000;

/** A prompt with its mentioned files attached. */
export interface AttachedPrompt {
  /** The prompt, followed by a `<file path="…">` block for each text file. */
  text: string;
  /** The mentioned images. */
  images: ImageContent[];
  /** The paths attached. */
  attached: string[];
  /** Mentions that name no readable file (left as typed), each with the reason. */
  missing: { path: string; reason: string }[];
}

/** Mentions and completion for one working directory. */
export interface FileMentions {
  /**
   * Completes the `@path` the text ends with: the one match (with a space after it), or the matches' common
   * prefix; undefined when the text does not end with a mention or nothing matches.
   *
   * Contract: synchronous over the project's file list, read once in the background on the first call
   * (nothing is completed until it is read); never throws.
   */
  complete(text: string): { text: string; matches: string[] } | undefined;
  /**
   * Starts reading the project's file list when it is not read yet.
   *
   * Contract: resolves once {@link complete} can answer from the list (at once when it can already); undefined
   * when the list is read; never rejects (a directory that cannot be listed gives an empty list).
   */
  whenListed(): Promise<void> | undefined;
  /**
   * Attaches the files the text mentions.
   *
   * Contract: never rejects; a mention of no file stays text and is reported in `missing`.
   */
  attach(text: string, signal?: AbortSignal): Promise<AttachedPrompt>;
}

/** Options of {@link createFileMentions}. */
export interface FileMentionOptions {
  /**
   * Why a mentioned file must not be attached (a permission deny rule for reading it), or undefined to read it.
   *
   * Contract: must not throw; called once per mentioned path before it is read.
   */
  refuse?: (path: string) => string | undefined;
}

/** The paths a text mentions, in order, without repeats. Pure. */
export function fileMentions(text: string): string[] {
  const paths = new Set<string>();
  for (const match of text.matchAll(MENTION)) paths.add(match[2]!.replace(/[,.;:!?)]+$/, ""));
  return [...paths].filter((path) => path !== "");
}

/**
 * Completion of a mention against a list of paths (see {@link FileMentions.complete}); paths that start
 * with what was typed come first, then paths whose file name does.
 *
 * Contract: pure.
 */
export function completeMention(
  text: string,
  files: readonly string[],
): { text: string; matches: string[] } | undefined {
  const match = /(^|\s)@([^\s@]*)$/.exec(text);
  if (match === null) return undefined;
  const typed = match[2]!;
  const head = text.slice(0, text.length - typed.length);
  let matches = files.filter((file) => file.startsWith(typed));
  if (matches.length === 0 && typed !== "") {
    const lower = typed.toLowerCase();
    matches = files.filter((file) => (file.split("/").pop() ?? "").toLowerCase().startsWith(lower));
  }
  if (matches.length === 0) return undefined;
  if (matches.length === 1) return { text: `${head}${matches[0]} `, matches };
  let prefix = matches[0]!;
  for (const candidate of matches) while (!candidate.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return { text: `${head}${prefix.length > typed.length ? prefix : typed}`, matches: matches.slice(0, 50) };
}

/**
 * Mentions for the project at `cwd`; the file list for completion is read when first asked for.
 *
 * Contract: never throws; a directory that cannot be listed completes nothing.
 */
export function createFileMentions(cwd: string, options: FileMentionOptions = {}): FileMentions {
  let files: readonly string[] | undefined;
  let listing: Promise<void> | undefined;
  const read = createReadTool(cwd);
  const whenListed = (): Promise<void> | undefined => {
    listing ??= listProjectFiles({ root: cwd, patterns: ["**/*"], maxResults: MAX_LISTED_FILES }).then(
      (list) => {
        files = list.files;
      },
      () => {
        files = [];
      },
    );
    return files === undefined ? listing : undefined;
  };
  return {
    complete(text) {
      whenListed();
      return files === undefined ? undefined : completeMention(text, files);
    },
    whenListed,
    async attach(text, signal = new AbortController().signal) {
      const found = await readMentionedFiles(read, text, signal, options.refuse);
      const blocks = found.blocks.join("\n\n");
      return {
        text: blocks === "" ? text : `${text}\n\n${blocks}`,
        images: found.images,
        attached: found.attached,
        missing: found.missing,
      };
    },
  };
}

/** What the files a text mentions gave: a `<file path="…">` block per text file, the images, the misses. */
async function readMentionedFiles(
  read: ReturnType<typeof createReadTool>,
  text: string,
  signal: AbortSignal,
  refuse: FileMentionOptions["refuse"],
): Promise<Omit<AttachedPrompt, "text"> & { blocks: string[] }> {
  const found: Omit<AttachedPrompt, "text"> & { blocks: string[] } = {
    blocks: [],
    images: [],
    attached: [],
    missing: [],
  };
  for (const path of fileMentions(text)) {
    const refusal = refuse?.(path);
    if (refusal !== undefined) {
      found.missing.push({ path, reason: refusal });
      continue;
    }
    try {
      const result = await read.execute({ path }, { toolCallId: "mention", signal, onUpdate: () => {} });
      const note = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      if ((result as { isError?: boolean }).isError === true) {
        found.missing.push({ path, reason: note });
        continue;
      }
      const images = result.content.filter((block): block is ImageContent => block.type === "image");
      if (images.length > 0) found.images.push(...images);
      else found.blocks.push(`<file path="${path}">\n${note}\n</file>`);
      found.attached.push(path);
    } catch (error) {
      found.missing.push({ path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return found;
}
