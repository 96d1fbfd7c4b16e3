/**
 * The libraries behind the tools' work (globbing, `.gitignore` rules, diffs), each imported on its first
 * use instead of with the package: a program that only hands the tools' definitions to a model — the first
 * request of a one-shot `arbor -p` — does not load them before that request.
 */
import type FastGlob from "fast-glob";
import type Ignore from "ignore";

let fastGlob: Promise<typeof FastGlob> | undefined;
let ignoreFactory: Promise<typeof Ignore> | undefined;
let diff: Promise<typeof import("diff")> | undefined;

/** fast-glob, imported once. */
export function loadFastGlob(): Promise<typeof FastGlob> {
  fastGlob ??= import("fast-glob").then((module) => module.default);
  return fastGlob;
}

/** The `ignore` package's factory, imported once. */
export function loadIgnore(): Promise<typeof Ignore> {
  ignoreFactory ??= import("ignore").then((module) => module.default);
  return ignoreFactory;
}

/** The `diff` package, imported once. */
export function loadDiff(): Promise<typeof import("diff")> {
  diff ??= import("diff");
  return diff;
}
