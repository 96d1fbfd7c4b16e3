import { byteLength, splitLines } from "./truncate.js";

/** Consecutive lines of one file around one or more matches. */
export interface GrepBlock {
  /** 0-based index of the block's first line in the file. */
  start: number;
  lines: string[];
  /** 0-based indexes (in the file) of the block's matching lines. */
  matches: Set<number>;
}

/** The matches of one file, with their context lines only (the rest of the file is not kept). */
export interface GrepFileMatches {
  /** How the file is shown (relative to the working directory when inside it). */
  path: string;
  blocks: GrepBlock[];
  /** Matching lines in `blocks`. */
  matchCount: number;
  /** The file has more matching lines than the `limit` given. */
  more: boolean;
}

/**
 * Finds the lines of `text` that match `regex` (a non-global RegExp), at most `limit`, and keeps them
 * with `context` lines before and after, merged into blocks of consecutive lines.
 */
export function searchFile(
  path: string,
  text: string,
  regex: RegExp,
  options: { limit: number; context: number },
): GrepFileMatches {
  const lines = splitLines(text);
  const matched: number[] = [];
  let more = false;
  for (let index = 0; index < lines.length; index++) {
    if (!regex.test(lines[index]!)) continue;
    if (matched.length >= options.limit) {
      more = true;
      break;
    }
    matched.push(index);
  }
  const blocks: GrepBlock[] = [];
  let previousEnd = -1;
  for (const index of matched) {
    const start = Math.max(0, index - options.context);
    const end = Math.min(lines.length - 1, index + options.context);
    const previous = blocks[blocks.length - 1];
    if (previous !== undefined && start <= previousEnd + 1) {
      previous.lines.push(...lines.slice(previousEnd + 1, end + 1));
      previous.matches.add(index);
    } else blocks.push({ start, lines: lines.slice(start, end + 1), matches: new Set([index]) });
    previousEnd = Math.max(previousEnd, end);
  }
  return { path, blocks, matchCount: matched.length, more };
}

/** How {@link formatGrepOutput} lays out matches. */
export interface GrepFormatOptions {
  /** Whether context lines were asked for (blocks are then separated by `--`). */
  withContext: boolean;
  /** Output stops before it passes this many UTF-8 bytes. */
  maxBytes: number;
  /** Longer lines are cut to a window around the match. */
  maxLineLength: number;
  regex: RegExp;
}

/** The text of a search's matches and how much of them it holds. */
export interface GrepOutput {
  text: string;
  shownMatches: number;
  shownFiles: number;
  cutByBytes: boolean;
  cutLines: number;
}

/**
 * Lays out matches ripgrep-style: `path:line: text` for a matching line, `path-line- text` for a
 * context line, `--` between blocks that are not adjacent (only when context is asked for).
 */
export function formatGrepOutput(files: readonly GrepFileMatches[], options: GrepFormatOptions): GrepOutput {
  const out: string[] = [];
  let bytes = 0;
  let shownMatches = 0;
  let shownFiles = 0;
  let cutLines = 0;
  const push = (line: string): boolean => {
    const size = byteLength(line) + 1;
    if (bytes + size > options.maxBytes && out.length > 0) return false;
    out.push(line);
    bytes += size;
    return true;
  };
  const done = (cutByBytes: boolean): GrepOutput => ({
    text: out.join("\n"),
    shownMatches,
    shownFiles,
    cutByBytes,
    cutLines,
  });
  for (const file of files) {
    let fileCounted = false;
    for (const block of file.blocks) {
      if (options.withContext && out.length > 0 && !push("--")) return done(true);
      for (const [offset, content] of block.lines.entries()) {
        const index = block.start + offset;
        const isMatch = block.matches.has(index);
        const { text, cut } = displayLine(
          content,
          isMatch ? options.regex : undefined,
          options.maxLineLength,
        );
        const line = isMatch ? `${file.path}:${index + 1}: ${text}` : `${file.path}-${index + 1}- ${text}`;
        if (!push(line)) return done(true);
        if (cut) cutLines++;
        if (!isMatch) continue;
        shownMatches++;
        if (!fileCounted) {
          fileCounted = true;
          shownFiles++;
        }
      }
    }
  }
  return done(false);
}

/** A line cut to `maxLength` characters: around the first match for a matching line. */
function displayLine(
  line: string,
  regex: RegExp | undefined,
  maxLength: number,
): { text: string; cut: boolean } {
  if (line.length <= maxLength) return { text: line, cut: false };
  const at = regex?.exec(line)?.index ?? 0;
  const start = Math.max(0, Math.min(at - Math.floor(maxLength / 4), line.length - maxLength));
  const end = start + maxLength;
  const text = `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`;
  return { text: `${text} [line truncated: ${line.length.toLocaleString("en-US")} characters]`, cut: true };
}
