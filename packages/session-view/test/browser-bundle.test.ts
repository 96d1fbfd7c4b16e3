import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, build, type Message, type Metafile, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const workspace = join(packageDir, "../..");
const ENTRY = "packages/session-view/src/index.ts";

/** What the page's bundler does: the sources through `@arbor/source`, for a browser, in memory. */
const BROWSER: BuildOptions = {
  absWorkingDir: workspace,
  bundle: true,
  platform: "browser",
  format: "esm",
  write: false,
  conditions: ["@arbor/source"],
  logLevel: "silent",
  metafile: true,
};

const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(specifier);

/**
 * Leaves every Node built-in out of the bundle (as an external import the metafile lists) instead of failing
 * on it, so one build finds them all. A bare name (`fs`, `punycode`) counts only when no installed package of
 * that name resolves, as it would for a browser bundler.
 */
const builtinsExternal: Plugin = {
  name: "builtins-external",
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === "probe" || !isBuiltin(args.path)) return undefined;
      if (!args.path.startsWith("node:")) {
        const probe = await builder.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "probe",
        });
        if (probe.errors.length === 0) return undefined;
      }
      return { path: args.path, external: true };
    });
  },
};

/** Bundles `options` for a browser; the errors (as `file:line: text`) and the metafile. */
async function bundle(options: BuildOptions): Promise<{ errors: string[]; metafile?: Metafile }> {
  try {
    const result = await build({ ...BROWSER, ...options });
    return {
      errors: result.errors.map(formatMessage),
      ...(result.metafile ? { metafile: result.metafile } : {}),
    };
  } catch (error) {
    const failure = error as { errors?: Message[] };
    if (!Array.isArray(failure.errors)) throw error;
    return { errors: failure.errors.map(formatMessage) };
  }
}

function formatMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}: ` : "";
  return `${where}${message.text}`;
}

/**
 * Every Node built-in the bundle from `entry` imports, each with the chain of imports that reaches it
 * (`a.ts → b.ts → node:fs`), found by a breadth-first walk of the metafile's inputs (shortest chains).
 */
function builtinChains(metafile: Metafile, entry: string): string[] {
  const via = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const chains: string[] = [];
  const chainTo = (file: string): string[] => {
    const path: string[] = [];
    for (let at: string | undefined = file; at !== undefined; at = via.get(at)) path.unshift(at);
    return path;
  };
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const imported of metafile.inputs[file]?.imports ?? []) {
      if (imported.external) {
        if (isBuiltin(imported.path)) chains.push([...chainTo(file), imported.path].join(" → "));
      } else if (!via.has(imported.path)) {
        via.set(imported.path, file);
        queue.push(imported.path);
      }
    }
  }
  return chains;
}

describe("the browser bundle of @arbor/session-view", () => {
  it("bundles src/index.ts for a browser with no errors", async () => {
    const { errors, metafile } = await bundle({ entryPoints: [ENTRY] });
    expect(errors).toEqual([]);
    // The whole graph was bundled: the package, its workspace dependencies and marked.
    const inputs = Object.keys(metafile?.inputs ?? {});
    expect(inputs).toContain("packages/session-view/src/export-html.ts");
    expect(inputs).toContain("packages/ai-providers/src/index.ts");
    expect(inputs).toContain("packages/session-store/src/ids.ts");
    expect(inputs.some((input) => input.includes("/node_modules/marked/"))).toBe(true);
  });

  it("reaches no Node built-in from src/index.ts", async () => {
    const { errors, metafile } = await bundle({ entryPoints: [ENTRY], plugins: [builtinsExternal] });
    expect(errors).toEqual([]);
    expect(builtinChains(metafile as Metafile, ENTRY)).toEqual([]);
  });

  it("names the import chain of a built-in it does reach (control: the recording subpath)", async () => {
    const { errors, metafile } = await bundle({
      stdin: { contents: 'export * from "@arbor/ai-providers/recording";', resolveDir: packageDir },
      plugins: [builtinsExternal],
    });
    expect(errors).toEqual([]);
    const chains = builtinChains(metafile as Metafile, "<stdin>");
    expect(chains).toContain(
      "<stdin> → packages/ai-providers/src/recording/index.ts → packages/ai-providers/src/recording/cassette.ts → node:fs",
    );
    expect(chains.map((chain) => chain.split(" → ").at(-1)).sort()).toEqual([
      "node:crypto",
      "node:fs",
      "node:path",
    ]);
    // Without the plugin, that is exactly what a browser bundler refuses.
    const refused = await bundle({
      stdin: { contents: 'export * from "@arbor/ai-providers/recording";', resolveDir: packageDir },
    });
    expect(refused.errors).toHaveLength(3);
    expect(
      refused.errors.every((error) =>
        /^packages\/ai-providers\/src\/recording\/cassette\.ts:\d+: Could not resolve "node:/.test(error),
      ),
    ).toBe(true);
  });
});
