import {
  ENTRY_SCHEMAS,
  isKnownEntryType,
  type SessionEntry,
  type SessionHeader,
  SessionHeaderSchema,
  UnknownSessionEntrySchema,
} from "./entries.js";
import { checkSchema, type SchemaIssue } from "./schema-check.js";
import { compileSchema } from "./schema-compile.js";

/** The outcome of validating one line: the typed value, or a message that names what is wrong. */
export type SessionValidationResult<T> =
  | { ok: true; value: T }
  | { ok: false; message: string; issues: SchemaIssue[] };

function summarize(subject: string, issues: SchemaIssue[]): string {
  const listed = issues.map((issue) => `${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`);
  return `${subject} is invalid: ${listed.join("; ")}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates a session header (line 1) against {@link SessionHeaderSchema}.
 *
 * Contract: never throws and never mutates `value`; on success `value` is returned as is (unknown
 * fields kept). A version-1 header (no `version`) is invalid here: migrate it first.
 */
export function validateSessionHeader(value: unknown): SessionValidationResult<SessionHeader> {
  if (compileSchema(SessionHeaderSchema)(value)) return { ok: true, value: value as SessionHeader };
  const issues = checkSchema(SessionHeaderSchema, value);
  if (issues.length === 0) return { ok: true, value: value as SessionHeader };
  return { ok: false, message: summarize("Session header", issues), issues };
}

/**
 * Validates an entry line against the schema of its `type`; an entry of a type this version does not
 * know only needs the common fields (`type`, `id`, `parentId`, `timestamp`) and is valid.
 *
 * Contract: never throws and never mutates `value`; on success `value` is returned as is (unknown
 * fields kept). A valid entry costs one pass of a compiled test (a fraction of parsing it). The
 * message names the entry (`Entry "ab12cd34" (message)`) and each problem's JSON pointer, e.g.
 * `/message/usage: required property missing`.
 */
export function validateSessionEntry(value: unknown): SessionValidationResult<SessionEntry> {
  const type = isRecord(value) && typeof value.type === "string" ? value.type : undefined;
  const schema =
    type !== undefined && isKnownEntryType(type) ? ENTRY_SCHEMAS[type] : UnknownSessionEntrySchema;
  if (compileSchema(schema)(value)) return { ok: true, value: value as SessionEntry };
  const issues = checkSchema(schema, value);
  if (issues.length === 0) return { ok: true, value: value as SessionEntry };
  const id = isRecord(value) && typeof value.id === "string" ? ` "${value.id}"` : "";
  const subject = `Entry${id}${type === undefined ? "" : ` (${type})`}`;
  return { ok: false, message: summarize(subject, issues), issues };
}
