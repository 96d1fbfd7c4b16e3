/**
 * The libraries behind the tools' work (globbing, `.gitignore` rules, diffs), each imported on its first
 * use instead of with the package: a program that only hands the tools' definitions to a model — the first
 * request of a one-shot `arbor -p` — does not load them before that request.
 */
import type Ignore from "ignore";

let tinyglobby: Promise<typeof import("tinyglobby")> | undefined;
let ignoreFactory: Promise<typeof Ignore> | undefined;
let diff: Promise<typeof import("diff")> | undefined;

/** tinyglobby, imported once. */
export function loadGlob(): Promise<typeof import("tinyglobby")> {
  tinyglobby ??= import("tinyglobby");
  return tinyglobby;
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
