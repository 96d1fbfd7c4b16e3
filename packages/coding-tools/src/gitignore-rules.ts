import type { Dirent } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { Ignore } from "ignore";
import { loadIgnore } from "./lazy-libraries.js";
import { toPosix } from "./paths.js";

/** The rules of one ignore file and the directory its patterns are relative to. */
interface RuleSet {
  base: string;
  rules: Ignore;
}

/** Directories never walked into: version-control metadata. */
const VCS_DIRECTORIES: ReadonlySet<string> = new Set([".git", ".hg", ".svn"]);

/** What {@link GitignoreRules} skips besides the ignore files' rules. */
export interface GitignoreRulesOptions {
  /** Walk into `node_modules` directories (default `false`). */
  includeNodeModules?: boolean;
  /** Apply `.gitignore` files (default `true`); `.git` and friends are skipped either way. */
  respectGitignore?: boolean;
}

/**
 * The `.gitignore` rules in force while walking down from a root directory, git's way: the rules of every
 * `.gitignore` between the repository root (the nearest ancestor holding `.git`) and the walked
 * directory apply, each relative to its own directory; a deeper file overrides a shallower one; an
 * ignored directory is not walked into (so nothing below it can be re-included). `.git/info/exclude`
 * counts as the repository root's rules. When the walk's root is itself ignored (the caller asked for it
 * explicitly), only the rules found below it apply.
 *
 * Directories must be filtered parent first ({@link filter} learns each directory's rules from its
 * listing), which is how any top-down walk visits them.
 */
export class GitignoreRules {
  /** The rules in force above the root (the root's own `.gitignore` excluded). */
  readonly #aboveRoot: readonly RuleSet[];
  readonly #root: string;
  /** Per directory whose rules are known: the rules in force for its entries (its own file included). */
  readonly #chains = new Map<string, readonly RuleSet[]>();
  readonly #options: Required<GitignoreRulesOptions>;

  private constructor(root: string, aboveRoot: readonly RuleSet[], options: Required<GitignoreRulesOptions>) {
    this.#root = root;
    this.#aboveRoot = aboveRoot;
    this.#options = options;
  }

  /** Loads the rules that apply above `root` (from the repository root down to `root`'s parent). */
  static async forRoot(root: string, options: GitignoreRulesOptions = {}): Promise<GitignoreRules> {
    const resolved = {
      includeNodeModules: options.includeNodeModules ?? false,
      respectGitignore: options.respectGitignore ?? true,
    };
    let chain: RuleSet[] = [];
    if (resolved.respectGitignore) {
      chain = await loadAncestorRules(root);
      if (chain.length > 0 && decide(chain, root, true) === "ignored") chain = [];
    }
    return new GitignoreRules(root, chain, resolved);
  }

  /**
   * The entries of `directory` (the root or a directory below it) that are not ignored. Learns the
   * directory's own `.gitignore` from its listing, and those of directories between the root and it
   * that were not listed (a walk may start below the root, e.g. at the static part of `src/**`).
   */
  async filter(directory: string, entries: readonly Dirent[]): Promise<Dirent[]> {
    let chain = this.#chains.get(directory);
    if (chain === undefined) {
      const inherited = await this.#inherited(directory);
      const own = entries.some((entry) => entry.name === ".gitignore") ? await this.#ownRules(directory) : [];
      chain = own.length > 0 ? [...inherited, ...own] : inherited;
      this.#chains.set(directory, chain);
    }
    const rules = chain;
    return entries.filter((entry) => {
      const isDirectory = entry.isDirectory();
      if (isDirectory && VCS_DIRECTORIES.has(entry.name)) return false;
      if (isDirectory && entry.name === "node_modules" && !this.#options.includeNodeModules) return false;
      if (rules.length === 0) return true;
      return decide(rules, join(directory, entry.name), isDirectory) !== "ignored";
    });
  }

  /** The rules in force for `directory`'s entries, except its own `.gitignore`. */
  async #inherited(directory: string): Promise<readonly RuleSet[]> {
    if (directory === this.#root) return this.#aboveRoot;
    const parent = dirname(directory);
    if (parent === directory || relative(this.#root, parent).startsWith("..")) return this.#aboveRoot;
    const known = this.#chains.get(parent);
    if (known !== undefined) return known;
    const chain = [...(await this.#inherited(parent)), ...(await this.#ownRules(parent))];
    this.#chains.set(parent, chain);
    return chain;
  }

  async #ownRules(directory: string): Promise<RuleSet[]> {
    if (!this.#options.respectGitignore) return [];
    const set = await loadRuleSet(directory, join(directory, ".gitignore"));
    return set === undefined ? [] : [set];
  }
}

/** Deepest rule set first: the first one with a matching rule decides. */
function decide(chain: readonly RuleSet[], path: string, isDirectory: boolean): "ignored" | "kept" | "none" {
  for (let index = chain.length - 1; index >= 0; index--) {
    const { base, rules } = chain[index]!;
    const relativePath = toPosix(relative(base, path));
    if (relativePath === "" || relativePath.startsWith("..")) continue;
    const result = rules.test(isDirectory ? `${relativePath}/` : relativePath);
    if (result.ignored) return "ignored";
    if (result.unignored) return "kept";
  }
  return "none";
}

/** The rule sets of the directories from the repository root down to `root`'s parent. */
async function loadAncestorRules(root: string): Promise<RuleSet[]> {
  const ancestors: string[] = [];
  let repositoryRoot: string | undefined;
  let current = root;
  for (;;) {
    if (await exists(join(current, ".git"))) {
      repositoryRoot = current;
      break;
    }
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
    ancestors.push(current);
  }
  if (repositoryRoot === undefined) return [];
  const chain: RuleSet[] = [];
  const exclude = await loadRuleSet(repositoryRoot, join(repositoryRoot, ".git", "info", "exclude"));
  if (exclude !== undefined) chain.push(exclude);
  for (const directory of ancestors.reverse()) {
    const set = await loadRuleSet(directory, join(directory, ".gitignore"));
    if (set !== undefined) chain.push(set);
  }
  return chain;
}

async function loadRuleSet(base: string, file: string): Promise<RuleSet | undefined> {
  try {
    const text = await readFile(file, "utf8");
    const ignore = await loadIgnore();
    return { base, rules: ignore().add(text) };
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
