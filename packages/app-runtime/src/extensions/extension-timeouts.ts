/**
 * How long Arbor waits for an extension: `extensionTimeouts` of `settings.json` (global, then project, key by
 * key), for every extension and per extension, over the defaults below. A call that runs out of time counts
 * as having returned nothing and is reported once (see `guarded-call.ts` and docs/extensions.md).
 */
import { basename, dirname, extname } from "node:path";
import { type Static, Type } from "@arbor/ai-providers";

/** The time limits of one extension, in milliseconds (`0`: none). */
export interface ExtensionTimeouts {
  /** Importing the file and running its default export. */
  loadMs: number;
  /** Each hook handler, except the two of {@link SUMMARY_HOOKS}. */
  hookMs: number;
  /** Each `session_before_compact` and `session_before_tree` handler (it may write a summary with a model). */
  summaryHookMs: number;
  /** Each event handler (`turn_end`, `session_start`, … `session_shutdown`). */
  eventMs: number;
}

/** The defaults: a few seconds on the hot path, longer for loading and for writing a summary. */
export const DEFAULT_EXTENSION_TIMEOUTS: Readonly<ExtensionTimeouts> = {
  loadMs: 10_000,
  hookMs: 5_000,
  summaryHookMs: 60_000,
  eventMs: 5_000,
};

/** The hooks whose handlers get {@link ExtensionTimeouts.summaryHookMs}. */
export const SUMMARY_HOOKS: readonly string[] = ["session_before_compact", "session_before_tree"];

/** The longest limit a timer can wait (2^31 - 1 ms, about 24.8 days). */
const MAX_MS = 2_147_483_647;

const limit = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_MS, description: `${description}; 0: no limit` }));

const limitFields = {
  loadMs: limit("ms to import an extension and run its default export (default 10000)"),
  hookMs: limit("ms for each hook handler (default 5000)"),
  summaryHookMs: limit("ms for each session_before_compact / session_before_tree handler (default 60000)"),
  eventMs: limit("ms for each event handler (default 5000)"),
};

/** The limits of one extension in `extensionTimeouts.perExtension`. */
export const ExtensionTimeoutLimitsSchema = Type.Object(limitFields, { additionalProperties: false });

/** `extensionTimeouts` of `settings.json`. */
export const ExtensionTimeoutsSchema = Type.Object(
  {
    ...limitFields,
    perExtension: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), ExtensionTimeoutLimitsSchema, {
        description:
          "limits of one extension, by its name (file name without extension; the directory of an index file), file name or path",
      }),
    ),
  },
  { additionalProperties: false },
);

/** `extensionTimeouts` of `settings.json`. */
export type ExtensionTimeoutSettings = Static<typeof ExtensionTimeoutsSchema>;

/** An extension's name: its file name without the extension, or its directory's name for an `index` file. */
export function extensionName(path: string): string {
  const file = basename(path, extname(path));
  return file === "index" ? basename(dirname(path)) : file;
}

function only(limits: Static<typeof ExtensionTimeoutLimitsSchema> | undefined): Partial<ExtensionTimeouts> {
  if (limits === undefined) return {};
  const set: Partial<ExtensionTimeouts> = {};
  for (const key of Object.keys(DEFAULT_EXTENSION_TIMEOUTS) as (keyof ExtensionTimeouts)[]) {
    const value = limits[key];
    if (value !== undefined) set[key] = value;
  }
  return set;
}

/**
 * The limits of the extension at `path`: the defaults, then the settings' global limits, then those of
 * `perExtension` whose key is the extension's name, its file name or its path (in that order of keys).
 *
 * Contract: pure.
 */
export function extensionTimeoutsFor(
  settings: ExtensionTimeoutSettings | undefined,
  path: string,
): ExtensionTimeouts {
  const per = settings?.perExtension ?? {};
  return {
    ...DEFAULT_EXTENSION_TIMEOUTS,
    ...only(settings),
    ...only(per[extensionName(path)]),
    ...only(per[basename(path)]),
    ...only(per[path]),
  };
}

/** The limit of a hook's handlers, and the setting that sets it. */
export function hookTimeout(
  timeouts: ExtensionTimeouts,
  hook: string,
): { ms: number; setting: "hookMs" | "summaryHookMs" } {
  return SUMMARY_HOOKS.includes(hook)
    ? { ms: timeouts.summaryHookMs, setting: "summaryHookMs" }
    : { ms: timeouts.hookMs, setting: "hookMs" };
}

/**
 * The project's `extensionTimeouts` over the global one: key by key, and `perExtension` by extension and key.
 *
 * Contract: pure; either may be `undefined`.
 */
export function mergeExtensionTimeoutSettings(
  base: ExtensionTimeoutSettings | undefined,
  over: ExtensionTimeoutSettings | undefined,
): ExtensionTimeoutSettings | undefined {
  if (base === undefined || over === undefined) return over ?? base;
  const perExtension = { ...base.perExtension };
  for (const [name, limits] of Object.entries(over.perExtension ?? {})) {
    perExtension[name] = { ...perExtension[name], ...limits };
  }
  const merged: ExtensionTimeoutSettings = { ...base, ...over };
  if (Object.keys(perExtension).length > 0) merged.perExtension = perExtension;
  return merged;
}
