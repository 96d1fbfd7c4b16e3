import type { TSchema } from "@sinclair/typebox";
import type { TypeCheck } from "@sinclair/typebox/compiler";
import {
  ENTRY_SCHEMAS,
  KNOWN_ENTRY_TYPES,
  type KnownEntryType,
  type SessionEntry,
  type SessionHeader,
  SessionHeaderSchema,
  UnknownSessionEntrySchema,
} from "./entries.js";
import { compiledCheck, issuesOf, type SchemaIssue } from "./schema-issues.js";

/** The outcome of validating one line: the typed value, or a message that names what is wrong. */
export type SessionValidationResult<T> =
  | { ok: true; value: T }
  | { ok: false; message: string; issues: SchemaIssue[] };

/**
 * The compiled check of each known entry type seen so far, by `type`: one string lookup per entry on the
 * scanning path (`compiledCheck` caches by schema too, but finding the schema first would be a second).
 */
const entryChecks = new Map<string, TypeCheck<TSchema>>();
const knownEntryTypes: ReadonlySet<string> = new Set(KNOWN_ENTRY_TYPES);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The compiled check for an entry's `type`, or for entries of unknown types. Each type's is compiled on
 * first use: a process that sees a few entry types compiles only theirs (compiling every type's check at
 * once made the first validation in a process take 5–7 ms instead of ~0.6 ms).
 */
function entryCheckFor(value: unknown): TypeCheck<TSchema> {
  const type = isRecord(value) ? value.type : undefined;
  if (typeof type !== "string") return compiledCheck(UnknownSessionEntrySchema);
  let check = entryChecks.get(type);
  if (check === undefined) {
    if (!knownEntryTypes.has(type)) return compiledCheck(UnknownSessionEntrySchema);
    check = compiledCheck(ENTRY_SCHEMAS[type as KnownEntryType]);
    entryChecks.set(type, check);
  }
  return check;
}

function summarize(subject: string, issues: SchemaIssue[]): string {
  const listed = issues.map((issue) => `${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`);
  return `${subject} is invalid: ${listed.join("; ")}`;
}

/**
 * Validates a session header (line 1) against {@link SessionHeaderSchema}.
 *
 * Contract: never throws and never mutates `value`; on success `value` is returned as is (unknown
 * fields kept). A version-1 header (no `version`) is invalid here: migrate it first.
 */
export function validateSessionHeader(value: unknown): SessionValidationResult<SessionHeader> {
  const check = compiledCheck(SessionHeaderSchema);
  if (check.Check(value)) return { ok: true, value: value as SessionHeader };
  const issues = issuesOf(check, value);
  return { ok: false, message: summarize("Session header", issues), issues };
}

/**
 * True when an entry is valid for its `type` (see {@link validateSessionEntry}): one call of the type's
 * compiled check, with nothing allocated — what reading a session runs on every entry of a context.
 *
 * Contract: never throws and never mutates `value`.
 */
export function isValidSessionEntry(value: unknown): value is SessionEntry {
  return entryCheckFor(value).Check(value);
}

/**
 * Validates an entry line against the schema of its `type` (TypeBox's compiled check, compiled once per
 * type); an entry of a type this version does not know only needs the common fields (`type`, `id`,
 * `parentId`, `timestamp`) and is valid.
 *
 * Contract: never throws and never mutates `value`; on success `value` is returned as is (unknown
 * fields kept). A valid entry costs one pass of a compiled check (a fraction of parsing it). The
 * message names the entry (`Entry "ab12cd34" (message)`) and each problem's JSON pointer, what was
 * expected and what was found, e.g. `/message/usage/output: required property missing (expected
 * number)`.
 */
export function validateSessionEntry(value: unknown): SessionValidationResult<SessionEntry> {
  const check = entryCheckFor(value);
  if (check.Check(value)) return { ok: true, value: value as SessionEntry };
  const issues = issuesOf(check, value);
  const record: Record<string, unknown> = isRecord(value) ? value : {};
  const type = typeof record.type === "string" ? record.type : undefined;
  const id = typeof record.id === "string" ? ` "${record.id}"` : "";
  const subject = `Entry${id}${type === undefined ? "" : ` (${type})`}`;
  return { ok: false, message: summarize(subject, issues), issues };
}
