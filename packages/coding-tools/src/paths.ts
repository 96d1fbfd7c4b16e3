import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { InvalidToolOptionError } from "./errors.js";

/**
 * Resolves a path a model gave to an absolute path: `~` and `~/…` are expanded to the home directory,
 * absolute paths are kept, relative ones are resolved against `cwd`.
 */
export function resolveToolPath(cwd: string, path: string): string {
  const trimmed = path.trim();
  if (trimmed === "~") return homedir();
  if (trimmed.startsWith("~/") || trimmed.startsWith(`~${sep}`)) return resolve(homedir(), trimmed.slice(2));
  return resolve(cwd, trimmed);
}

/**
 * How a path is shown to the model: relative to `cwd` (with `/` separators) when it lies inside it,
 * otherwise absolute. `cwd` itself is shown as `.`.
 */
export function displayPath(cwd: string, absolutePath: string): string {
  const relativePath = relative(cwd, absolutePath);
  if (relativePath === "") return ".";
  if (relativePath.startsWith("..") || isAbsolute(relativePath)) return absolutePath;
  return toPosix(relativePath);
}

/** The path with `/` separators (a no-op on POSIX systems). */
export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** Checks the `cwd` given to a tool factory and returns it absolute. Throws {@link InvalidToolOptionError}. */
export function checkCwd(cwd: unknown): string {
  if (typeof cwd !== "string" || cwd.trim() === "") {
    throw new InvalidToolOptionError(
      "cwd",
      "expected the directory the tools work in, as a non-empty string.",
    );
  }
  return resolve(cwd);
}

/** Checks an optional positive integer option. Throws {@link InvalidToolOptionError}. */
export function checkPositiveInteger(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidToolOptionError(option, `expected a positive integer, received ${String(value)}.`);
  }
  return value;
}
