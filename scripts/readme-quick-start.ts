/**
 * The quick start of a package README: its install line (the first ```sh/```bash block) and its first
 * ```ts block. `scripts/check-packages.ts` checks them, `scripts/pack-check.ts` runs the block against the
 * packed and installed tarballs, so the README is the only copy of the example.
 */

/** A README's install command and its first TypeScript block. */
export interface ReadmeQuickStart {
  /** The first shell block's text, e.g. `npm install @arbor/agent-core @arbor/ai-providers`. */
  install: string | undefined;
  /** The packages the install command names (`npm install` / `pnpm add`), version suffixes removed. */
  installs: string[];
  /** The first ```ts block, or undefined when the README has none. */
  code: string | undefined;
}

/** Reads the quick start out of a README's text. */
export function readmeQuickStart(readme: string): ReadmeQuickStart {
  const install = /```(?:sh|bash)\n([\s\S]*?)```/.exec(readme)?.[1]?.trim();
  const installs: string[] = [];
  for (const line of install?.split("\n") ?? []) {
    const match = /^(?:npm (?:install|i)|pnpm add)\s+(.*)$/.exec(line.trim());
    if (!match?.[1]) continue;
    for (const word of match[1].split(/\s+/)) {
      if (word.startsWith("-")) continue;
      installs.push(word.replace(/(.)@[^/]*$/, "$1"));
    }
  }
  return { install, installs, code: /```ts\n([\s\S]*?)```/.exec(readme)?.[1] };
}

/** The packages a module's source imports (`node:` built-ins and relative paths left out), e.g. `@arbor/harness`. */
export function importedPackages(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"'.][^"']*)["']/g)) {
    const specifier = match[1]!;
    if (specifier.startsWith("node:")) continue;
    const parts = specifier.split("/");
    found.add(specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...found].sort();
}
