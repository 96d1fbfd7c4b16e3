/**
 * The demo as a command (`pnpm demo`, `arbor demo`): flags → {@link startDemo} → the address printed,
 * then running until SIGINT or SIGTERM (a second Ctrl-C while it closes exits at once, saying what was
 * kept). A user mistake (an unknown flag, a taken port, an unknown provider) is one line on stderr and exit
 * code 2 or 1, never a stack trace.
 */
import { interruptTwice, watchKeptWork } from "@arbor/app-runtime";
import { DEMO_USAGE, parseDemoArgs } from "./demo-args.js";
import { type DemoOptions, startDemo } from "./start-demo.js";

/** Where the command writes. */
export interface DemoCliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * Starts the demo with already parsed options and waits for a stop signal; resolves to the exit code.
 *
 * Contract: prints the URL (with its token) on stdout once the server listens; never throws.
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
  });
  process.once("SIGTERM", () => signalled());
  try {
    await (stop ?? signal);
    await demo.close();
  } finally {
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
