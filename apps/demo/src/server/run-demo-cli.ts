/**
 * The demo as a command (`pnpm demo`, `arbor demo`): flags → {@link startDemo} → the address printed,
 * then running until SIGINT or SIGTERM, after which it closes and exits 0 (a second Ctrl-C while it closes
 * exits at once, saying what was kept; the copy of a Ctrl-C that `pnpm demo` forwards is not a second one).
 * A user mistake (an unknown flag, a taken port, an unknown provider) is one line on stderr and exit
 * code 2 or 1, never a stack trace.
 */
import { existsSync } from "node:fs";
import { interruptTwice, watchKeptWork } from "@arbor/app-runtime";
import { DEMO_USAGE, parseDemoArgs } from "./demo-args.js";
import { type DemoOptions, startDemo } from "./start-demo.js";

/** How long after a Ctrl-C another SIGINT is the same one (pnpm forwards the terminal's to its script). */
const REPEATED_SIGINT_MS = 500;

/** Where the command writes. */
export interface DemoCliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * Starts the demo with already parsed options and waits for a stop signal; resolves to the exit code.
 *
 * Contract: prints the URL (with its token) and the tools' folder on stdout once the server listens; never
 * throws; resolves to 0 once closed after SIGINT or SIGTERM (the caller then exits).
 */
export async function runDemo(options: DemoOptions, io: DemoCliIo, stop?: Promise<void>): Promise<number> {
  let demo: Awaited<ReturnType<typeof startDemo>>;
  try {
    demo = await startDemo(options);
  } catch (error) {
    io.stderr(`arbor demo: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  io.stdout(`Arbor demo on ${demo.url}\n`);
  io.stdout(
    `  model ${demo.runtime.model.provider}/${demo.runtime.model.id} · ${demo.runtime.storeDescription ?? "sessions in memory"}\n`,
  );
  io.stdout(
    demo.freshCwd
      ? `  tools run in ${demo.cwd} (a fresh temporary folder; --cwd <dir> to choose)\n`
      : `  tools run in ${demo.cwd} (--cwd)\n`,
  );
  if (options.tour) io.stdout("  running the tour: open the address to watch it\n");
  io.stdout("  Ctrl-C stops it.\n");
  let signalled!: () => void;
  const signal = new Promise<void>((resolve) => {
    signalled = resolve;
  });
  const kept = watchKeptWork(demo.runtime);
  const interrupt = interruptTwice({
    onFirst: () => signalled(),
    kept: () => kept.describe(),
    write: io.stderr,
    name: "arbor demo",
    repeatWindowMs: REPEATED_SIGINT_MS,
  });
  process.once("SIGTERM", () => signalled());
  try {
    await (stop ?? signal);
    await demo.close();
    if (demo.freshCwd && existsSync(demo.cwd)) io.stdout(`The tools' folder stays: ${demo.cwd}\n`);
  } finally {
    // The copy of the Ctrl-C that pnpm forwards may come once the demo is closed: it must not kill the
    // process by the signal then (pnpm would print its ELIFECYCLE line), so it is ignored for a moment.
    const late = () => undefined;
    process.on("SIGINT", late);
    setTimeout(() => process.off("SIGINT", late), REPEATED_SIGINT_MS).unref();
    interrupt.restore();
    kept.stop();
  }
  return 0;
}

/**
 * `pnpm demo [flags]`: parses `args` and runs the demo; resolves to the exit code.
 *
 * Contract: never throws; `--help` prints the usage and exits 0, a bad flag exits 2.
 */
export async function runDemoCli(
  args: readonly string[],
  io: DemoCliIo,
  stop?: Promise<void>,
): Promise<number> {
  const parsed = parseDemoArgs(args);
  if (parsed.kind === "help") {
    io.stdout(`${DEMO_USAGE}\n`);
    return 0;
  }
  if (parsed.kind === "error") {
    io.stderr(`arbor demo: ${parsed.message}\n`);
    return 2;
  }
  return runDemo(parsed.options, io, stop);
}
