/**
 * The record of a permission decision: who allowed or refused a tool call (the user once or for the session,
 * a rule, the mode). The app runtime writes one as a `custom` entry of type {@link PERMISSION_CUSTOM_TYPE}
 * (no part of the model's context) and sends it as a `permission_decision` event; every view shows it as one
 * short line ({@link describePermissionRecord}). Browser-safe.
 */

/** The `customType` of a permission decision's entry. */
export const PERMISSION_CUSTOM_TYPE = "arbor.permission";

/** Who decided: the user's answer, an earlier "for this session" answer, a settings rule, the mode. */
export type PermissionDecider = "user" | "session" | "rule" | "mode";

/** A permission decision, as recorded. */
export interface PermissionRecord {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The command, path or tool call, in a few words. */
  readonly summary: string;
  readonly decision: "allowed" | "denied";
  readonly by: PermissionDecider;
  /** For the user's answer: once, or for the rest of the session. */
  readonly scope?: "once" | "session";
  /** The rule that decided (by `rule` or `session`), or the rule a "for this session" answer added. */
  readonly rule?: string;
  /** The permission mode of the run. */
  readonly mode: string;
  /** Why a call was refused, in words (the text the model got). */
  readonly reason?: string;
}

function field(data: Record<string, unknown>, name: string): string | undefined {
  const value = data[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * The record in the data of a `custom` entry, or `undefined` when the data is not one.
 *
 * Contract: pure; reads leniently (unknown fields are ignored).
 */
export function permissionRecordOf(customType: unknown, data: unknown): PermissionRecord | undefined {
  if (customType !== PERMISSION_CUSTOM_TYPE || typeof data !== "object" || data === null) return undefined;
  const record = data as Record<string, unknown>;
  const toolName = field(record, "toolName");
  const decision = field(record, "decision");
  const by = field(record, "by");
  if (toolName === undefined || (decision !== "allowed" && decision !== "denied") || by === undefined) {
    return undefined;
  }
  return record as unknown as PermissionRecord;
}

/**
 * One line for a decision, e.g. `permission: bash "rm -rf x" denied by rule bash(rm *)`.
 *
 * Contract: pure.
 */
export function describePermissionRecord(record: PermissionRecord): string {
  const what = `${record.toolName} ${JSON.stringify(record.summary)}`;
  const rule = record.rule === undefined ? "" : ` ${record.rule}`;
  let how: string;
  if (record.by === "user") {
    how =
      record.decision === "denied"
        ? "denied by the user"
        : record.scope === "session"
          ? `allowed by the user for this session${rule === "" ? "" : ` (${record.rule})`}`
          : "allowed once by the user";
  } else if (record.by === "session") {
    how = `${record.decision} for this session (${record.rule ?? "an earlier answer"})`;
  } else if (record.by === "rule") {
    how = `${record.decision} by rule${rule}`;
  } else {
    how = `${record.decision === "denied" ? "refused" : "allowed"} by mode ${record.mode}`;
  }
  return `permission: ${what} ${how}`;
}
