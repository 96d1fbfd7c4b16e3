/**
 * A shell command split into the simple commands a permission rule judges one by one: `git status && rm -rf x`
 * is `git status` and `rm -rf x`. The words come from `shell-quote`'s `parse` (quotes removed, variables
 * kept as written); the control operators `&&`, `||`, `;`, `|`, `&`, `|&`, `;;`, subshell parentheses and
 * unquoted newlines separate parts; the command inside `$(…)`, `<(…)` and backticks is a part of its own.
 *
 * What a prefix rule cannot see through makes the command *opaque*: a command substitution, a process
 * substitution, or a redirection that writes or reads a file (`>`, `>>`, `<`; only `2>&1`-style duplications
 * and `> /dev/null` are harmless). An opaque command is never allowed by a prefix rule (a deny rule still
 * applies to each of its parts).
 */
import { parse } from "shell-quote";

/** A command as the rules see it. */
export interface ShellCommandParts {
  /** Each simple command's words joined by one space, in order (empty commands left out). */
  readonly parts: readonly string[];
  /** True when some part hides what it runs or touches (see the module comment). */
  readonly opaque: boolean;
}

type Token = ReturnType<typeof parse>[number];

const SEPARATORS = new Set(["&&", "||", ";", "|", "&", "|&", ";;", "(", ")", "<(", ">("]);
const REDIRECTIONS = new Set([">", ">>", "<", ">&", "<<<", "<&"]);

/** Unquoted newlines become `;` (shell-quote reads them as spaces, which would join two commands). */
function newlinesAsSeparators(command: string): string {
  let out = "";
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < command.length; index++) {
    const char = command[index] as string;
    if (char === "\\" && quote !== "'") {
      out += char + (command[index + 1] ?? "");
      index++;
      continue;
    }
    if (quote === undefined && (char === "'" || char === '"')) quote = char;
    else if (quote === char) quote = undefined;
    out += quote === undefined && char === "\n" ? ";" : char;
  }
  return out;
}

function isOperator(token: Token): token is { op: string } {
  return typeof token === "object" && token !== null && "op" in token && token.op !== "glob";
}

function wordOf(token: Token): string | undefined {
  if (typeof token === "string") return token;
  if (typeof token === "object" && token !== null && "op" in token && token.op === "glob") {
    return (token as { pattern: string }).pattern;
  }
  return undefined;
}

/** Whether a redirection writes or reads nothing that matters: `2>&1`, `>&2`, `> /dev/null`, `2>/dev/null`. */
function harmlessRedirection(op: string, target: Token | undefined): boolean {
  const word = target === undefined ? undefined : wordOf(target);
  if (word === undefined) return false;
  if (op === ">&" || op === "<&") return /^(\d+|-)$/.test(word);
  return (op === ">" || op === ">>") && word === "/dev/null";
}

/**
 * Splits a command (see the module comment).
 *
 * Contract: pure; never throws (a command shell-quote cannot read is one opaque part, the command itself).
 */
export function shellCommandParts(command: string): ShellCommandParts {
  const parts: string[] = [];
  let opaque = /\$\(|`|<\(|>\(/.test(command);
  let tokens: Token[];
  try {
    tokens = parse(newlinesAsSeparators(command), (name) => `$${name}`);
  } catch {
    return { parts: [command.trim().replace(/\s+/g, " ")], opaque: true };
  }
  let words: string[] = [];
  const end = () => {
    if (words.length > 0) parts.push(words.join(" "));
    words = [];
  };
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (isOperator(token)) {
      if (SEPARATORS.has(token.op)) {
        end();
        continue;
      }
      if (REDIRECTIONS.has(token.op)) {
        const target = tokens[index + 1];
        if (harmlessRedirection(token.op, target)) {
          // `2>&1`: the descriptor number written before the operator is not a word of the command.
          if (/^\d$/.test(words.at(-1) ?? "")) words.pop();
        } else opaque = true;
        index++;
        continue;
      }
      opaque = true;
      continue;
    }
    if (typeof token === "object" && token !== null && "comment" in token) continue;
    const word = wordOf(token);
    if (word === undefined) continue;
    // `$(` arrives as the word `$` (or `…$`) followed by a `(` separator.
    if (word.endsWith("$") && isOperator(tokens[index + 1] as Token)) opaque = true;
    words.push(word);
  }
  end();
  // A backtick substitution: what it runs is a part of its own.
  for (const match of command.matchAll(/`([^`]*)`/g)) {
    const inner = match[1] ?? "";
    if (inner.trim() !== "") parts.push(...shellCommandParts(inner).parts);
  }
  return { parts, opaque };
}
