/**
 * `pnpm pack:check` (a step of `.ci/run`): what a stranger gets from npm.
 *
 * 1. Builds (turbo), packs every published workspace package with `pnpm pack` and checks each tarball:
 *    LICENSE, README.md and package.json present, no `.tsbuildinfo`; the CLI ships its bundle only.
 * 2. Installs the library tarballs with npm into a fresh project in the system temp directory (outside the
 *    repository; third-party dependencies come from the npm registry) and checks that every shipped source
 *    map points at a shipped file.
 * 3. Runs each README's first ```ts block there as an .mjs (types stripped with TypeScript's
 *    `transpileModule`), and type-checks the blocks against the installed packages under
 *    `moduleResolution` `node16` and `bundler`, without `skipLibCheck`.
 * 4. `npm i -g --prefix <temp>` the CLI tarball, checks its runtime dependencies are exactly the packages the
 *    bundle imports, runs `arbor --version`, `arbor --provider scripted -p help`, a prompt template with
 *    frontmatter (the YAML parser the bundle loads on demand) and `arbor demo` (which says
 *    the demo comes with a clone), and reports its size; a missing or unbuilt SQLite driver is one line;
 *    then the checks of scripts/pack-check-cli.ts (a proxy sees the CONNECT, an extension importing
 *    TypeBox and Arbor's packages runs its tool, `sessions delete`, `completion bash`).
 *
 * Usage: `tsx scripts/pack-check.ts` (after `turbo run build`). The PostgreSQL store's snippet needs
 * `DATABASE_URL` (`.ci/run` starts a server) and is skipped, saying so, without it. Exits 1 on any failure.
 * `ARBOR_PACK_KEEP=1` keeps the temporary directory; `ARBOR_PACK_SCRIPTS=1` runs `prepack` and every install
 * script (better-sqlite3 then compiles its addon: about a minute more on 2 cores).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { findPackages } from "./check-packages.ts";
import { checkInstalledCli } from "./pack-check-cli.ts";
import { importedPackages, readmeQuickStart } from "./readme-quick-start.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "arbor-pack-"));
const failures: string[] = [];
const fail = (message: string) => {
  failures.push(message);
  console.error(`pack-check: FAIL ${message}`);
};
const started = Date.now();
const step = (message: string) =>
  console.log(`pack-check: ${message} (${Math.round((Date.now() - started) / 1000)} s)`);

/** Runs a command, streaming nothing; returns its output or records a failure. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; what: string },
) {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    timeout: 900_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    fail(
      `${options.what}: exit ${result.status ?? result.signal}\n${result.stdout}${result.stderr}`.trimEnd(),
    );
  }
  return result;
}

/** The same as {@link run}, without blocking: a few of these run at once (`inParallel`). */
function runAsync(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; what: string },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill(), 900_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      if (status !== 0) fail(`${options.what}: exit ${status}\n${stdout}${stderr}`.trimEnd());
      done({ status, stdout, stderr });
    });
  });
}

/** Runs `task` over `items`, `width` at a time (2 cores: a few processes keep both busy). */
async function inParallel<T>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** Total size of the files under a directory. */
function sizeOf(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.size;
  let total = 0;
  for (const entry of readdirSync(path)) total += sizeOf(join(path, entry));
  return total;
}

const published = findPackages(root).filter((pkg) => !pkg.json.private);
const cli = published.find((pkg) => pkg.json.bin !== undefined);
const libraries = published.filter((pkg) => pkg !== cli);
const sqliteStore = published.find(
  (pkg) => pkg.json.dependencies?.["better-sqlite3"] !== undefined && pkg !== cli,
);
const require = createRequire(import.meta.url);

// 1. Build (cached by turbo when CI has just built) and pack.
const packFlags = process.env.ARBOR_PACK_SCRIPTS ? [] : ["--config.ignore-scripts=true"];
run("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"], {
  cwd: root,
  what: "turbo run build",
});
const tarballDir = join(work, "tarballs");
mkdirSync(tarballDir);
const tarballs = new Map<string, string>();
await inParallel(published, 3, async (pkg) => {
  const destination = join(tarballDir, pkg.name.replace(/^@arbor\//, ""));
  mkdirSync(destination);
  // `pnpm pack` turns workspace: ranges into versions. The build is done above, once, so `prepack` (a clean
  // build, for `pnpm publish`) is skipped unless ARBOR_PACK_SCRIPTS=1.
  await runAsync("pnpm", ["pack", ...packFlags, "--pack-destination", destination], {
    cwd: pkg.dir,
    what: `pnpm pack ${pkg.name}`,
  });
  const made = readdirSync(destination).find((file) => file.endsWith(".tgz"));
  if (!made) {
    fail(`pnpm pack ${pkg.name} made no tarball`);
    return;
  }
  const tarball = join(destination, made);
  tarballs.set(pkg.name, tarball);
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
  for (const required of ["package/LICENSE", "package/README.md", "package/package.json"]) {
    if (!files.includes(required)) fail(`${pkg.name}: the tarball has no ${required.slice(8)}`);
  }
  for (const file of files.filter((file) => file.endsWith(".tsbuildinfo")))
    fail(`${pkg.name}: the tarball ships ${file}`);
  if (pkg === cli) {
    const extra = files.filter(
      (file) =>
        !/^package\/(dist\/arbor\.js|dist\/arbor-main\.cjs|LICENSE|README\.md|CHANGELOG\.md|package\.json)$/.test(
          file,
        ),
    );
    if (extra.length > 0)
      fail(`${pkg.name}: the tarball ships more than the bundle: ${extra.slice(0, 5).join(", ")}…`);
  }
  console.log(`pack-check: ${made}: ${kb(statSync(tarball).size)} packed, ${files.length} files`);
});
step("packed");
if (failures.length > 0) finish(); // nothing to install

/** Removes the temporary directory (unless kept) and exits: 1 after any failure. */
function finish(): never {
  if (process.env.ARBOR_PACK_KEEP) console.log(`pack-check: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
  if (failures.length > 0) {
    console.error(`pack-check: ${failures.length} failure(s)`);
    process.exit(1);
  }
  console.log(`pack-check: ${published.length} packages packed, installed and run`);
  process.exit(0);
}

// 2. Install the libraries into a fresh project outside the repository.
const app = join(work, "app");
mkdirSync(app);
writeFileSync(
  join(app, "package.json"),
  `${JSON.stringify({ name: "arbor-pack-check", private: true, type: "module" }, null, 2)}\n`,
);
writeFileSync(join(app, "notes.txt"), "first line\nsecond line\nthird line\n");
const npmEnv = {
  ...process.env,
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
};
// better-sqlite3's install script compiles its addon from source when no prebuilt binary can be downloaded
// (about a minute on 2 cores). Installs run without scripts; the addon the workspace install built is copied
// in when the versions match, else `npm rebuild` builds it. ARBOR_PACK_SCRIPTS=1 runs every install script.
const installFlags = process.env.ARBOR_PACK_SCRIPTS
  ? ["--loglevel=error"]
  : ["--loglevel=error", "--ignore-scripts"];
const libraryTarballs = libraries.map((pkg) => tarballs.get(pkg.name)).filter((file) => file !== undefined);
run("npm", ["install", ...installFlags, "@types/node@^20", ...libraryTarballs], {
  cwd: app,
  env: npmEnv,
  what: "npm install (libraries)",
});
provideSqliteAddon(join(app, "node_modules"));
step("installed the libraries");
await checkLeanAppRuntime();

/**
 * `@arbor/app-runtime` without its optional peer `@arbor/mcp`: no MCP SDK is installed, the runtime loads, and
 * settings that name MCP servers get one line saying what to install.
 */
async function checkLeanAppRuntime(): Promise<void> {
  const lean = join(work, "lean");
  mkdirSync(lean);
  writeFileSync(
    join(lean, "package.json"),
    `${JSON.stringify({ name: "lean", private: true, type: "module" })}\n`,
  );
  const withoutMcp = libraries
    .filter((pkg) => pkg.name !== "@arbor/mcp")
    .map((pkg) => tarballs.get(pkg.name))
    .filter((file) => file !== undefined);
  const installed = run("npm", ["install", ...installFlags, ...withoutMcp], {
    cwd: lean,
    env: npmEnv,
    what: "npm install (libraries without @arbor/mcp)",
  });
  if (installed.status !== 0) return;
  if (existsSync(join(lean, "node_modules", "@modelcontextprotocol"))) {
    fail("@arbor/app-runtime installed the MCP SDK though @arbor/mcp is an optional peer");
  }
  writeFileSync(
    join(lean, "mcp.mjs"),
    [
      'import { startMcpServers } from "@arbor/app-runtime/extensions";',
      "const servers = { files: { command: 'files-mcp' } };",
      "const options = { servers, tools: undefined, cwd: '.', env: {}, version: '0', warn: () => {} };",
      "await startMcpServers(options).then(",
      "  () => { console.log('started'); process.exit(2); },",
      "  (error) => { console.log(error.code + ': ' + error.message); },",
      ");",
    ].join("\n"),
  );
  const result = await runAsync(process.execPath, ["mcp.mjs"], {
    cwd: lean,
    what: "app-runtime without @arbor/mcp",
  });
  if (result.status === 0 && !result.stdout.startsWith("mcp_unavailable: ")) {
    fail(`app-runtime without @arbor/mcp, mcpServers set: ${result.stdout}${result.stderr}`);
  }
  console.log(
    `pack-check: without @arbor/mcp: ${kb(sizeOf(join(lean, "node_modules")))} installed, with it: ${kb(sizeOf(join(app, "node_modules")))}; mcpServers then says: ${result.stdout.trim()}`,
  );
}

/** Puts better-sqlite3's native addon under `modules` (a node_modules folder) when scripts did not build it. */
function provideSqliteAddon(modules: string): void {
  const installed = join(modules, "better-sqlite3");
  const addon = join("build", "Release", "better_sqlite3.node");
  if (!existsSync(installed) || existsSync(join(installed, addon))) return;
  const workspaceCopy = join(
    dirname(require.resolve("better-sqlite3/package.json", { paths: [sqliteStore?.dir ?? root] })),
  );
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
  if (existsSync(join(workspaceCopy, addon)) && version(workspaceCopy) === version(installed)) {
    mkdirSync(join(installed, "build", "Release"), { recursive: true });
    copyFileSync(join(workspaceCopy, addon), join(installed, addon));
  } else {
    run("npm", ["rebuild", "better-sqlite3", "--loglevel=error"], {
      cwd: dirname(modules),
      env: npmEnv,
      what: "npm rebuild better-sqlite3",
    });
  }
}
/** Runs `arbor -p help` on an SQLite store. */
function sqliteRun(arbor: string, env: NodeJS.ProcessEnv) {
  const database = join(work, "sessions.db");
  const result = spawnSync(arbor, ["--provider", "scripted", "--store", `sqlite:${database}`, "-p", "help"], {
    cwd: app,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr ?? "" };
}

/**
 * The CLI installs without a native build: `better-sqlite3` is an optional peer. Without it, `--store sqlite:`
 * is one line naming the package to install; installed without its build script, one line saying how to
 * build it; built, the store works.
 */
function checkSqliteDriver(arbor: string, prefix: string, env: NodeJS.ProcessEnv): void {
  const globalModules = join(prefix, "lib", "node_modules");
  if (existsSync(join(globalModules, cli?.name ?? "", "node_modules", "better-sqlite3"))) {
    fail("the CLI installed better-sqlite3 (a native build) though it is an optional peer");
  }
  const oneLine = (result: { status: number | null; stderr: string }, expected: string, what: string) => {
    const lines = result.stderr.trim().split("\n");
    if (result.status !== 1 || lines.length !== 1 || !lines[0]?.includes(expected)) {
      fail(
        `${what}: expected exit 1 and one line naming "${expected}", got exit ${result.status}:\n${result.stderr}`,
      );
    } else console.log(`pack-check: ${what}: ${lines[0]}`);
  };
  oneLine(sqliteRun(arbor, env), "npm install -g better-sqlite3", "--store sqlite: without better-sqlite3");
  run(
    "npm",
    ["install", "--global", "--loglevel=error", "--ignore-scripts", "--prefix", prefix, sqliteDriverSpec()],
    {
      cwd: work,
      env: npmEnv,
      what: "npm install --global better-sqlite3 --ignore-scripts",
    },
  );
  oneLine(
    sqliteRun(arbor, env),
    "npm rebuild -g better-sqlite3",
    "--store sqlite: with an unbuilt better-sqlite3",
  );
  provideSqliteAddon(globalModules);
  const built = sqliteRun(arbor, env);
  if (built.status !== 0)
    fail(`--store sqlite: with better-sqlite3 built: exit ${built.status}\n${built.stderr}`);
  else console.log("pack-check: --store sqlite: works once better-sqlite3 is installed beside the CLI");
}

/** `better-sqlite3@<the version the workspace built>`, so that its addon can be copied in. */
function sqliteDriverSpec(): string {
  const workspaceCopy = dirname(
    require.resolve("better-sqlite3/package.json", { paths: [sqliteStore?.dir ?? root] }),
  );
  const { version } = JSON.parse(readFileSync(join(workspaceCopy, "package.json"), "utf8")) as {
    version: string;
  };
  return `better-sqlite3@${version}`;
}

for (const pkg of libraries) {
  const installed = join(app, "node_modules", pkg.name);
  if (!existsSync(installed)) {
    fail(`${pkg.name} is not installed`);
    continue;
  }
  for (const map of listFiles(installed).filter((file) => file.endsWith(".map"))) {
    const { sources } = JSON.parse(readFileSync(map, "utf8")) as { sources: string[] };
    for (const source of sources) {
      if (!existsSync(resolve(dirname(map), source))) {
        fail(`${pkg.name}: ${relative(installed, map)} points at ${source}, which is not shipped`);
        break;
      }
    }
  }
}

/** The part of esbuild's API {@link bundleImports} uses. */
interface EsbuildBuild {
  build(options: Record<string, unknown>): Promise<{
    metafile: { inputs: Record<string, { imports: { path: string; external?: boolean }[] }> };
  }>;
}

/**
 * The packages a bundle's files import, statically or with `import()`: read by esbuild, the bundler that
 * wrote them (the bundle is minified, one statement after another on a line), Node's built-ins left out.
 */
async function bundleImports(files: string[]): Promise<string[]> {
  // esbuild is the CLI's devDependency, not the repository root's: resolved from there.
  const esbuild = createRequire(join(root, "apps/cli/package.json"))("esbuild") as EsbuildBuild;
  const { metafile } = await esbuild.build({
    entryPoints: files,
    bundle: true,
    write: false,
    metafile: true,
    outdir: join(work, "bundle-imports"),
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  const found = new Set<string>();
  for (const input of Object.values(metafile.inputs)) {
    for (const { path, external } of input.imports) {
      if (!external || isBuiltin(path)) continue;
      const parts = path.split("/");
      found.add(path.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
    }
  }
  return [...found].sort();
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() && entry.name !== "node_modules"
      ? listFiles(join(dir, entry.name))
      : entry.isFile()
        ? [join(dir, entry.name)]
        : [],
  );
}

// 3. Run and type-check every README's quick start.
const home = join(work, "home");
mkdirSync(home);
const snippets: string[] = [];
const snippetEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, ARBOR_HOME: home, NO_COLOR: "1" };
if (process.env.DATABASE_URL) snippetEnv.DATABASE_URL = process.env.DATABASE_URL;
const runnable: { name: string; slug: string }[] = [];
for (const pkg of libraries) {
  const { code } = readmeQuickStart(readFileSync(join(pkg.dir, "README.md"), "utf8"));
  if (code === undefined) {
    fail(`${pkg.name}: README.md has no \`\`\`ts quick start`);
    continue;
  }
  const slug = pkg.name.replace(/^@arbor\//, "");
  snippets.push(`${slug}.ts`);
  writeFileSync(join(app, `${slug}.ts`), code);
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: `${slug}.ts`,
  }).outputText;
  writeFileSync(join(app, `${slug}.mjs`), js);
  if (importedPackages(code).some((name) => name.includes("postgres")) && !snippetEnv.DATABASE_URL) {
    console.log(`pack-check: ${pkg.name} quick start skipped: no DATABASE_URL`);
  } else runnable.push({ name: pkg.name, slug });
}
await inParallel(runnable, 3, async ({ name, slug }) => {
  const what = `${name} README quick start`;
  const result = await runAsync(process.execPath, [`${slug}.mjs`], { cwd: app, env: snippetEnv, what });
  if (result.status === 0)
    console.log(`pack-check: ${what} ran (${result.stdout.split("\n").length - 1} lines of output)`);
});
step("ran the quick starts");
const strict = {
  strict: true,
  noEmit: true,
  target: "ES2022",
  lib: ["ES2023"],
  types: ["node"],
  skipLibCheck: false,
};
const resolutions = [
  ["node16", { module: "node16", moduleResolution: "node16" }],
  ["bundler", { module: "esnext", moduleResolution: "bundler" }],
] as const;
await inParallel(resolutions, 2, async ([name, options]) => {
  const config = join(app, `tsconfig.${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({ compilerOptions: { ...strict, ...options }, files: snippets }, null, 2),
  );
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const what = `type-check of the quick starts (moduleResolution ${name})`;
  const result = await runAsync(process.execPath, [tsc, "-p", config], { cwd: app, what });
  if (result.status === 0)
    console.log(`pack-check: ${snippets.length} quick starts type-check under moduleResolution ${name}`);
});
step("type-checked");

// 4. The CLI, installed globally into a temporary prefix.
const cliTarball = cli && tarballs.get(cli.name);
if (cli && cliTarball) {
  const prefix = join(work, "global");
  const installStarted = Date.now();
  run("npm", ["install", "--global", ...installFlags, "--prefix", prefix, cliTarball], {
    cwd: work,
    env: npmEnv,
    what: "npm install --global (CLI)",
  });
  const installSeconds = ((Date.now() - installStarted) / 1000).toFixed(1);
  const installed = join(prefix, "lib", "node_modules", cli.name);
  if (existsSync(installed)) {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      version: string;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const imported = await bundleImports(
      readdirSync(join(installed, "dist")).map((file) => join(installed, "dist", file)),
    );
    // The database drivers are optional peers: installed only by those who use `--store sqlite:` / `postgres://`.
    const declared = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).sort();
    if (imported.join(",") !== declared.join(",")) {
      fail(
        `${cli.name}: dependencies and peers [${declared.join(", ")}] are not what the bundle imports [${imported.join(", ")}]`,
      );
    }
    const arbor = join(prefix, "bin", "arbor");
    const cliEnv = { ...snippetEnv };
    const version = run(arbor, ["--version"], { cwd: app, env: cliEnv, what: "arbor --version" });
    if (version.status === 0 && !version.stdout.includes(manifest.version)) {
      fail(`arbor --version printed ${JSON.stringify(version.stdout)}, not ${manifest.version}`);
    }
    const help = run(arbor, ["--provider", "scripted", "-p", "help"], {
      cwd: app,
      env: cliEnv,
      what: "arbor --provider scripted -p help",
    });
    if (help.status === 0 && help.stdout.trim() === "")
      fail("arbor --provider scripted -p help printed nothing");
    // A prompt template with YAML frontmatter: the bundle loads its YAML parser on demand.
    const project = join(work, "template-project");
    mkdirSync(join(project, ".arbor", "prompts"), { recursive: true });
    writeFileSync(
      join(project, ".arbor", "prompts", "greet.md"),
      "---\ndescription: greet someone\n---\nSay hello to $1.\n",
    );
    const template = run(arbor, ["--provider", "scripted", "--no-session", "-p", "/greet Ada"], {
      cwd: project,
      env: cliEnv,
      what: "arbor -p /greet Ada (a prompt template with frontmatter)",
    });
    if (template.status === 0 && template.stderr.includes("frontmatter"))
      fail(`a prompt template's frontmatter was refused by the installed CLI: ${template.stderr.trim()}`);
    // The web demo comes with a clone, not with the CLI: `arbor demo` says so (exit 1), without a stack trace.
    const demo = spawnSync(arbor, ["demo", "--port", "0"], {
      cwd: app,
      env: cliEnv,
      encoding: "utf8",
      timeout: 60_000,
    });
    if (demo.status !== 1 || !demo.stderr.includes("pnpm demo") || demo.stderr.includes("    at ")) {
      fail(`arbor demo without the demo installed: exit ${demo.status ?? demo.signal}\n${demo.stderr}`);
    }
    const modules = readdirSync(join(prefix, "lib", "node_modules", cli.name, "node_modules"), {
      recursive: true,
    })
      .map(String)
      .filter((entry) => entry.endsWith("package.json") && !entry.includes("/test/")).length;
    console.log(
      `pack-check: ${cli.name} installed globally in ${installSeconds} s: ${kb(sizeOf(join(prefix, "lib", "node_modules")))} (about ${modules} package.json files), ` +
        `arbor --version: ${version.stdout.trim()}`,
    );
    checkSqliteDriver(arbor, prefix, cliEnv);
    await checkInstalledCli({
      arbor,
      cwd: app,
      env: cliEnv,
      home,
      fail,
      log: (message) => console.log(`pack-check: ${message}`),
    });
  } else fail(`${cli.name} is not installed under ${prefix}`);
  step("installed and ran the CLI");
}

finish();
