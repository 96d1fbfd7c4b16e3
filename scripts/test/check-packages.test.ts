import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkPackages, importsOf, MAX_MAIN_ENTRY_NAMES, runtimeExportNames } from "../check-packages.ts";
import { REPOSITORY } from "../check-publish.ts";
import { versionFiles, versionModule, writeVersions } from "../write-versions.ts";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const temporary: string[] = [];

afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface FixturePackage {
  name: string;
  dir: string;
  json?: Record<string, unknown>;
  files?: Record<string, string>;
  readme?: boolean;
}

/** The package.json fields a published package needs (scripts/check-publish.ts). */
function publishMetadata(dir: string): Record<string, unknown> {
  return {
    license: "MIT",
    keywords: ["arbor"],
    homepage: `${REPOSITORY}/tree/main/${dir}#readme`,
    bugs: { url: `${REPOSITORY}/issues` },
    repository: { type: "git", url: `git+${REPOSITORY}.git`, directory: dir },
    files: ["dist", "!dist/.tsbuildinfo", "README.md", "CHANGELOG.md", "LICENSE"],
    scripts: { prepack: "rm -rf dist && pnpm run build" },
    publishConfig: { access: "public" },
    engines: { node: ENGINES },
  };
}

/** The fixture workspace's root engines, which every published package must repeat. */
const ENGINES = ">=20.19 <21 || >=22.12";

function quickStartReadme(name: string, code = `import * as x from "${name}";\nconsole.log(x);\n`): string {
  return `# ${name}\n\n\`\`\`sh\nnpm install ${name}\n\`\`\`\n\n\`\`\`ts\n${code}\`\`\`\n`;
}

function workspace(packages: FixturePackage[]): string {
  const root = mkdtempSync(join(tmpdir(), "arbor-check-packages-"));
  temporary.push(root);
  writeFileSync(join(root, "package.json"), JSON.stringify({ private: true, engines: { node: ENGINES } }));
  for (const pkg of packages) {
    const dir = join(root, pkg.dir);
    mkdirSync(dir, { recursive: true });
    const json = {
      name: pkg.name,
      version: "0.0.0",
      type: "module",
      exports: {
        ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
        "./package.json": "./package.json",
      },
      ...publishMetadata(pkg.dir),
      ...pkg.json,
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(json));
    writeFileSync(join(dir, "LICENSE"), "MIT License\n");
    if (pkg.readme !== false) writeFileSync(join(dir, "README.md"), quickStartReadme(pkg.name));
    for (const [path, content] of Object.entries(pkg.files ?? { "src/index.ts": "export const x = 1;\n" })) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
  }
  return root;
}

const providers = { name: "@arbor/ai-providers", dir: "packages/ai-providers" };

describe("check:packages", () => {
  it("passes on this repository", () => {
    expect(checkPackages(repoRoot)).toEqual([]);
  });

  it("passes on a workspace that follows the arrows", () => {
    const root = workspace([
      providers,
      {
        name: "@arbor/agent-core",
        dir: "packages/agent-core",
        json: { dependencies: { "@arbor/ai-providers": "workspace:*" } },
        files: {
          "src/index.ts": 'import type { Model } from "@arbor/ai-providers";\nexport type M = Model;\n',
        },
      },
    ]);
    expect(checkPackages(root)).toEqual([]);
  });

  it("fails when a package imports a package its arrows forbid", () => {
    const root = workspace([
      providers,
      { name: "@arbor/provider-anthropic", dir: "packages/provider-anthropic" },
      {
        name: "@arbor/harness",
        dir: "packages/harness",
        json: { dependencies: { "@arbor/ai-providers": "workspace:*" } },
        files: {
          "src/index.ts": 'export { createAnthropicProvider } from "@arbor/provider-anthropic";\n',
        },
      },
    ]);
    expect(checkPackages(root)).toEqual([
      "packages/harness/src/index.ts: imports @arbor/provider-anthropic, but @arbor/harness may not import @arbor/provider-anthropic (the arrows of docs/architecture.md)",
    ]);
  });

  it.each(["session-store-sqlite", "session-store-postgres"])(
    "lets @arbor/%s use @arbor/session-store (a peer) and nothing else of the workspace",
    (name) => {
      const root = workspace([
        providers,
        { name: "@arbor/session-store", dir: "packages/session-store" },
        { name: "@arbor/session-store-jsonl", dir: "packages/session-store-jsonl" },
        {
          name: `@arbor/${name}`,
          dir: `packages/${name}`,
          json: {
            peerDependencies: { "@arbor/session-store": "workspace:^" },
            devDependencies: { "@arbor/session-store": "workspace:*" },
          },
          files: {
            "src/index.ts": 'export { Session } from "@arbor/session-store";\n',
            "src/other.ts": 'export { encodeCwd } from "@arbor/session-store-jsonl";\n',
          },
        },
      ]);
      expect(checkPackages(root)).toEqual([
        `packages/${name}/src/other.ts: imports @arbor/session-store-jsonl, but @arbor/${name} may not import @arbor/session-store-jsonl (the arrows of docs/architecture.md)`,
      ]);
    },
  );
  it("knows the app layer's arrows: session-view and app-runtime may not import a concrete provider or store", () => {
    const base = [
      providers,
      { name: "@arbor/session-store", dir: "packages/session-store" },
      { name: "@arbor/harness", dir: "packages/harness" },
      { name: "@arbor/provider-openai", dir: "packages/provider-openai" },
      { name: "@arbor/session-store-jsonl", dir: "packages/session-store-jsonl" },
    ];
    const layerDependencies = {
      "@arbor/ai-providers": "workspace:*",
      "@arbor/session-store": "workspace:*",
      "@arbor/harness": "workspace:*",
    };
    const allowedImports =
      'import type { Model } from "@arbor/ai-providers";\n' +
      'import type { Session } from "@arbor/session-store";\n' +
      'import type { HarnessSession } from "@arbor/harness";\n';
    const following = workspace([
      ...base,
      {
        name: "@arbor/session-view",
        dir: "packages/session-view",
        json: { dependencies: layerDependencies },
        files: { "src/index.ts": allowedImports },
      },
      {
        name: "@arbor/app-runtime",
        dir: "packages/app-runtime",
        json: {
          dependencies: layerDependencies,
          devDependencies: { "@arbor/session-store-jsonl": "workspace:*" },
        },
        files: {
          "src/index.ts": allowedImports,
          // A factory the app passes is fine in tests (the concrete package is a devDependency).
          "test/runtime.test.ts": 'const stores = { jsonl: () => import("@arbor/session-store-jsonl") };\n',
        },
      },
    ]);
    expect(checkPackages(following)).toEqual([]);

    const breaking = workspace([
      ...base,
      {
        name: "@arbor/session-view",
        dir: "packages/session-view",
        json: { dependencies: layerDependencies },
        files: {
          "src/index.ts": 'export { createOpenAIProvider } from "@arbor/provider-openai";\n',
          "src/store.ts": 'export const load = () => import("@arbor/session-store-jsonl");\n',
        },
      },
      {
        name: "@arbor/app-runtime",
        dir: "packages/app-runtime",
        json: { dependencies: { ...layerDependencies, "@arbor/provider-openai": "workspace:*" } },
        files: { "src/providers.ts": 'import { createOpenAIProvider } from "@arbor/provider-openai";\n' },
      },
    ]);
    expect(checkPackages(breaking)).toEqual([
      "@arbor/app-runtime: depends on @arbor/provider-openai, which the arrows of docs/architecture.md do not allow",
      "packages/app-runtime/src/providers.ts: imports @arbor/provider-openai, but @arbor/app-runtime may not import @arbor/provider-openai (the arrows of docs/architecture.md)",
      "packages/session-view/src/index.ts: imports @arbor/provider-openai, but @arbor/session-view may not import @arbor/provider-openai (the arrows of docs/architecture.md)",
      "packages/session-view/src/store.ts: imports @arbor/session-store-jsonl, but @arbor/session-view may not import @arbor/session-store-jsonl (the arrows of docs/architecture.md)",
    ]);
  });

  it("fails when package.json depends on a forbidden package, even without an import", () => {
    const root = workspace([
      providers,
      { name: "@arbor/session-store", dir: "packages/session-store" },
      {
        name: "@arbor/agent-core",
        dir: "packages/agent-core",
        json: { dependencies: { "@arbor/session-store": "workspace:*" } },
      },
    ]);
    expect(checkPackages(root)).toEqual([
      "@arbor/agent-core: depends on @arbor/session-store, which the arrows of docs/architecture.md do not allow",
    ]);
  });

  it("fails on an undeclared import, a missing README, type, exports order, files and long files", () => {
    const root = workspace([
      {
        ...providers,
        readme: false,
        json: {
          type: "commonjs",
          files: undefined,
          exports: { ".": { default: "./x.js", types: "./x.d.ts" } },
        },
        files: { "src/index.ts": "export const a = 1;\n".repeat(801) },
      },
      {
        name: "@arbor/compaction",
        dir: "packages/compaction",
        files: { "src/index.ts": 'import { x } from "@arbor/ai-providers/testing";\n' },
      },
      { name: "@arbor/mystery", dir: "packages/mystery" },
    ]);
    const problems = checkPackages(root);
    expect(problems).toEqual(
      expect.arrayContaining([
        "@arbor/ai-providers: missing README.md",
        '@arbor/ai-providers: package.json must say "type": "module"',
        '@arbor/ai-providers: "exports" does not export "./package.json"',
        '@arbor/ai-providers: exports["."] must list "types" first (found default, types)',
        '@arbor/ai-providers: package.json has no "files" list',
        "packages/ai-providers/src/index.ts: 801 lines (limit 800); split it by concept",
        "packages/compaction/src/index.ts: imports @arbor/ai-providers, which @arbor/compaction's package.json does not declare",
        "@arbor/mystery (packages/mystery): not in the arrows table of scripts/check-packages.ts (the arrows of docs/architecture.md)",
      ]),
    );
    expect(problems).toHaveLength(8);
  });

  it("fails on what a published package lacks: metadata, license, ranges, condition, README and shipped text", () => {
    const bare = "source";
    const root = workspace([
      providers,
      { name: "@arbor/session-store", dir: "packages/session-store" },
      {
        name: "@arbor/agent-core",
        dir: "packages/agent-core",
        json: {
          version: "0.1.0",
          engines: { node: ">=18" },
          homepage: undefined,
          repository: { type: "git", url: `git+${REPOSITORY}.git` },
          publishConfig: undefined,
          scripts: { build: "tsc -b" },
          files: ["dist", "README.md"],
          exports: {
            ".": { types: "./dist/index.d.ts", [bare]: "./src/index.ts", default: "./dist/index.js" },
            "./package.json": "./package.json",
          },
          dependencies: { "@arbor/ai-providers": "workspace:*", yaml: "2.9.1" },
        },
        files: {
          "src/index.ts": "/** The agent's state (seed 003 section 7). */\nexport const x = 1;\n",
          "test/spawn.test.ts": `const args = ["--conditions=${bare}", "x.ts"];\n`,
        },
      },
    ]);
    const code =
      'import { Agent } from "@arbor/agent-core";\nimport { script } from "@arbor/ai-providers/testing";\n';
    writeFileSync(
      join(root, "packages/agent-core/README.md"),
      `${quickStartReadme("@arbor/agent-core", code)}${"\nmore\n".repeat(30)}`,
    );
    rmSync(join(root, "packages/agent-core/LICENSE"));
    expect(checkPackages(root).sort()).toEqual(
      [
        "@arbor/agent-core: no LICENSE file (copy the root LICENSE)",
        `@arbor/agent-core: "engines" must be { "node": "${ENGINES}" }, the root's (the versions CI tests)`,
        "@arbor/agent-core: version 0.1.0 differs from the other packages' 0.0.0 (one fixed release group)",
        `@arbor/agent-core: "homepage" must be "${REPOSITORY}/tree/main/packages/agent-core#readme"`,
        `@arbor/agent-core: "repository" must be { "type": "git", "url": "git+${REPOSITORY}.git", "directory": "packages/agent-core" }`,
        '@arbor/agent-core: "publishConfig" must say "access": "public"',
        '@arbor/agent-core: "prepack" must be "rm -rf dist && pnpm run build" (a clean build: no stale files in the tarball)',
        '@arbor/agent-core: "files" must list CHANGELOG.md',
        '@arbor/agent-core: "files" must list LICENSE',
        '@arbor/agent-core: "files" must leave out dist/.tsbuildinfo ("!dist/.tsbuildinfo")',
        "@arbor/agent-core: dependencies.yaml is pinned to 2.9.1; use a caret range (^2.9.1)",
        '@arbor/agent-core: exports["."] uses the "source" condition; name it "@arbor/source"',
        "@arbor/agent-core: README.md has 70 lines (limit 60): keep install, one example and links; move reference to docs/",
        "@arbor/agent-core: README.md's quick start imports @arbor/ai-providers, which its install line omits",
        "packages/agent-core/src/index.ts:1: points at the design seeds or DESIGN.md; point at docs/ instead",
        'packages/agent-core/test/spawn.test.ts: uses the bare "source" condition; use "@arbor/source"',
      ].sort(),
    );
  });

  it("lets tests use the conformance suite but not source files", () => {
    const root = workspace([
      providers,
      { name: "@internal/conformance", dir: "packages/conformance", json: { private: true } },
      {
        name: "@arbor/session-store",
        dir: "packages/session-store",
        json: { devDependencies: { "@internal/conformance": "workspace:*" } },
        files: {
          "src/index.ts": 'import "@internal/conformance";\n',
          "test/store.test.ts": 'import { describeSessionStore } from "@internal/conformance";\n',
        },
      },
    ]);
    expect(checkPackages(root)).toEqual([
      "packages/session-store/src/index.ts: imports @internal/conformance, but @arbor/session-store may not import @internal/conformance (the arrows of docs/architecture.md)",
    ]);
  });

  it("fails when a file reaches into another package by a relative path", () => {
    const root = workspace([
      providers,
      {
        name: "@arbor/agent-core",
        dir: "packages/agent-core",
        files: {
          "src/index.ts": 'export * from "./local.js";\n',
          "src/local.ts": "export const a = 1;\n",
          "test/a.test.ts": 'import "../../ai-providers/src/index.js";\nimport "../src/index.js";\n',
        },
      },
    ]);
    expect(checkPackages(root)).toEqual([
      "packages/agent-core/test/a.test.ts: imports ../../ai-providers/src/index.js, which reaches outside @arbor/agent-core; import the package by name",
    ]);
  });

  it("fails when a source reads its package.json at run time or a version.ts differs from package.json", () => {
    const root = workspace([
      {
        ...providers,
        files: {
          "src/index.ts": 'export { VERSION } from "./version.js";\n',
          "src/version.ts": versionModule("0.0.0"),
        },
      },
      {
        name: "@arbor/agent-core",
        dir: "packages/agent-core",
        files: {
          "src/index.ts": [
            'import { createRequire } from "node:module";',
            '/** Not a read: "../package.json" in a comment. */',
            'export const VERSION = createRequire(import.meta.url)("../package.json").version;',
            "",
          ].join("\n"),
          "src/version.ts": versionModule("0.0.1"),
          "test/version.test.ts": 'const manifest = "../package.json";\n',
        },
      },
      {
        name: "@arbor/cli",
        dir: "apps/cli",
        files: {
          "src/entry.ts": 'readFileSync(new URL(`../package.json`, import.meta.url), "utf8");\n',
        },
      },
    ]);
    expect(checkPackages(root).sort()).toEqual([
      "apps/cli/src/entry.ts: reads package.json at run time; import VERSION from the generated src/version.ts (`pnpm write-versions`)",
      "packages/agent-core/src/index.ts: reads package.json at run time; import VERSION from the generated src/version.ts (`pnpm write-versions`)",
      "packages/agent-core/src/version.ts: differs from its package.json's version; run `pnpm write-versions`",
    ]);
  });

  it("write-versions rewrites exactly the stale version files, from each package.json", () => {
    const root = workspace([
      { ...providers, files: { "src/version.ts": versionModule("0.0.0") } },
      { name: "@arbor/agent-core", dir: "packages/agent-core", files: { "src/version.ts": "" } },
      { name: "@arbor/session-store", dir: "packages/session-store" },
    ]);
    expect(writeVersions(root)).toEqual(["packages/agent-core/src/version.ts"]);
    expect(readFileSync(join(root, "packages/agent-core/src/version.ts"), "utf8")).toContain(
      'export const VERSION: string = "0.0.0";',
    );
    expect(existsSync(join(root, "packages/session-store/src/version.ts"))).toBe(false);
    expect(writeVersions(root)).toEqual([]);
  });

  it("every version.ts in this repository is what write-versions writes, and its package exports it", () => {
    const files = versionFiles(repoRoot);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      expect(file.actual, file.path).toBe(file.expected);
      const index = readFileSync(join(repoRoot, dirname(file.path), "index.ts"), "utf8");
      expect(index, file.path).toContain('export { VERSION } from "./version.js";');
    }
  });

  it("finds static, type-only, re-exported, side-effect and dynamic imports, not comments", () => {
    const source = [
      'import a from "one";',
      'import type { B } from "two";',
      'import {\n  c,\n  d,\n} from "three";',
      'export * from "four";',
      'import "five";',
      'const six = await import("six");',
      '// import x from "commented";',
      '/* import y from "blocked"; */',
    ].join("\n");
    expect(importsOf(source)).toEqual(["one", "two", "three", "four", "five", "six"]);
  });

  it("counts the runtime names a module exports, not its types or comments", () => {
    const source = [
      'export { a, type B, c as d } from "./one.js";',
      'export type { E, F } from "./two.js";',
      'export {\n  g,\n  type H,\n  i,\n} from "./three.js";',
      "export const j = 1;",
      "export async function k() {}",
      "export function* l() {}",
      "export abstract class M {}",
      "export const enum N { X }",
      "export interface O {}",
      "export type P = string;",
      "// export const commented = 1;",
      '/* export { blocked } from "./four.js"; */',
      "export default j;",
    ].join("\n");
    expect(runtimeExportNames(source)).toEqual(["a", "d", "g", "i", "j", "k", "l", "M", "N", "default"]);
  });

  it("fails when the main entry of app-runtime or session-view exports more than 80 runtime names", () => {
    const entry = (count: number) =>
      Array.from({ length: count }, (_, index) => `export const name${index} = ${index};\n`).join("") +
      'export type { Many } from "./types.js";\n';
    const atLimit = workspace([
      {
        name: "@arbor/session-view",
        dir: "packages/session-view",
        files: { "src/index.ts": entry(MAX_MAIN_ENTRY_NAMES) },
      },
    ]);
    expect(checkPackages(atLimit)).toEqual([]);
    const over = workspace([
      { name: "@arbor/session-view", dir: "packages/session-view", files: { "src/index.ts": entry(81) } },
      // Other packages are not limited.
      { name: "@arbor/harness", dir: "packages/harness", files: { "src/index.ts": entry(120) } },
    ]);
    expect(checkPackages(over)).toEqual([
      `packages/session-view/src/index.ts: exports 81 runtime names (limit ${MAX_MAIN_ENTRY_NAMES}); move names behind a subpath export ("exports" in package.json) or make them internal (import them from their module inside the package)`,
    ]);
  });
});
