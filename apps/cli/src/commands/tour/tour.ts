/**
 * `arbor tour`: the main job on embedded defaults. A scripted, offline session runs through the real
 * harness, the real coding tools (in a temporary folder) and the session store (`$ARBOR_HOME`, else
 * `~/.arbor`, or `--store`): files written, run, read and edited; a build log that pushes the context past
 * the compaction threshold of a deliberately small window; a label; an alternative tried on a branch that is
 * then left, with its summary. It streams like a normal session, then prints the session tree, where the
 * file is, and how to continue with a real provider. No network, no key; a few seconds.
 */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AppRuntime,
  arborCommand,
  createAppRuntime,
  resolveArborHome,
  shellWord,
} from "@arbor/app-runtime";
import {
  createTourProvider,
  LABEL_AFTER_PROMPT,
  NAVIGATE_AFTER_PROMPT,
  TOUR_COMPACTION,
  TOUR_CONTEXT_WINDOW,
  TOUR_LABEL,
  TOUR_MODEL,
  TOUR_PROMPTS,
} from "@arbor/app-runtime/demo";
import type { HarnessSession } from "@arbor/harness";
import { formatCount, harnessTransport, sessionContextUsage, treeTextLines } from "@arbor/session-view";
import { STORE_FACTORIES } from "../../factories.js";
import type { CliIo } from "../../io.js";
import { createStyle, type Style } from "./style.js";
import { TranscriptPrinter } from "./transcript-printer.js";

/** Default pause between streamed chunks of 4 characters, in ms. */
export const DEFAULT_TOUR_PACE_MS = 6;

/** Options of {@link runTour}. */
export interface TourOptions {
  /** Pause between streamed chunks in ms (0: as fast as possible). */
  pace?: number;
  /** A store URL (`--store`); default the JSONL store in `$ARBOR_HOME` or `~/.arbor`. */
  store?: string;
}

function usageLine(session: HarnessSession, style: Style): string {
  const usage = sessionContextUsage(session);
  return style.dim(
    `  context: ${formatCount(usage.tokens)} of ${formatCount(usage.contextWindow)} tokens (${Math.round(usage.percent)} %; compaction above ${formatCount(usage.compactionThreshold)})`,
  );
}

/** The first lines of a summary, indented, for the transcript. */
function excerpt(summary: string, lines: number): string[] {
  const all = summary.split("\n").filter((line) => line.trim() !== "");
  const shown = all.slice(0, lines).map((line) => `    ${line}`);
  if (all.length > lines) shown.push(`    … (${all.length - lines} more lines)`);
  return shown;
}

/**
 * Runs the tour; resolves to the exit code (1 when a step did not happen as scripted, saying which).
 *
 * Contract: writes the transcript and the final report to `io.stdout`; leaves the session in the store and
 * the project folder in the system's temporary directory (both are named at the end).
 */
export async function runTour(options: TourOptions, io: CliIo): Promise<number> {
  const started = Date.now();
  const style = createStyle(io.stdout, io.env);
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "arbor-tour-")));
  const home = resolveArborHome(io.env);
  const pace = options.pace ?? DEFAULT_TOUR_PACE_MS;
  const tour = createTourProvider(pace);
  const model = tour.provider.model;
  const problems: string[] = [];
  // The tour is a session of an app runtime like any other: the scripted tour model as the `scripted`
  // provider, the coding tools in the tour's folder, the store the flags name; no extensions.
  const runtime: AppRuntime = await createAppRuntime({
    cwd: folder,
    env: io.env,
    home,
    providers: { scripted: async () => ({ createDemoProvider: () => tour.provider }) },
    stores: STORE_FACTORIES,
    flags: { provider: "scripted", model: TOUR_MODEL.id },
    ...(options.store === undefined ? {} : { store: options.store }),
    compaction: TOUR_COMPACTION,
    extensions: false,
    harnessOptions: {
      onError: (error) => problems.push(error instanceof Error ? error.message : String(error)),
    },
  });
  const printer = new TranscriptPrinter(io.stdout, style);
  const arbor = arborCommand(io.env);
  let resume = "";
  let compactions = 0;
  try {
    const live: HarnessSession = runtime.session;
    await live.setName("Arbor tour");
    harnessTransport(live).subscribe((event) => {
      printer.handle(event);
      if (event.type === "compaction_end" && event.outcome === "compacted") compactions++;
    });
    printer.line(
      style.heading(
        "Arbor tour: an offline session through the real harness, coding tools and session store.",
      ),
    );
    printer.line(
      `Model: scripted/${model.id}, a scripted model with a ${formatCount(TOUR_CONTEXT_WINDOW)}-token window (so compaction comes early).`,
    );
    printer.line(`Project folder: ${folder}`);
    printer.line(`Session ${live.id} in ${runtime.storeDescription}`);

    let labelledId: string | null = null;
    for (const [index, prompt] of TOUR_PROMPTS.entries()) {
      tour.queue(prompt);
      await live.prompt(prompt.text);
      printer.line(usageLine(live, style));
      const error = live.state.errorMessage;
      if (error !== undefined) problems.push(`prompt ${index + 1} failed: ${error}`);
      if (index === LABEL_AFTER_PROMPT) {
        labelledId = live.session.leafId;
        if (labelledId !== null) {
          await live.label(labelledId, TOUR_LABEL);
          printer.line();
          printer.line(
            style.mark(`🏷  Labelled entry ${labelledId} "${TOUR_LABEL}": a point to come back to.`),
          );
        }
      }
      if (index === NAVIGATE_AFTER_PROMPT && labelledId !== null) {
        printer.line();
        printer.line(
          style.mark(`↩  Back to "${TOUR_LABEL}" (${labelledId}); the branch being left is summarized:`),
        );
        const moved = await live.navigateTree(labelledId, { summarize: true });
        if (moved.kind === "moved" && moved.summary !== undefined) {
          printer.line(style.mark(`◇ Branch summary (entry ${moved.summaryEntryId}):`));
          for (const line of excerpt(moved.summary, 8)) printer.line(style.dim(line));
          printer.line(style.dim("  The files on disk stay as they are: only the conversation goes back."));
        } else {
          problems.push(`going back to the label did not summarize the branch (${moved.kind})`);
        }
      }
    }
    if (tour.pending > 0) problems.push(`${tour.pending} scripted answers were never asked for`);
    if (compactions === 0) problems.push("the context never crossed the compaction threshold");

    const id = live.id;
    const short = id.slice(0, 8);
    const storeFlag = options.store === undefined ? "" : ` --store ${options.store}`;
    printer.line();
    printer.line(style.heading("The session tree (◆ compaction, ◇ branch summary, [label], ← leaf):"));
    for (const line of treeTextLines(live.session)) printer.line(`  ${line}`);
    printer.line();
    const file = runtime.sessionFile;
    printer.line(
      `Session ${id}${file === undefined ? ` is in ${runtime.storeDescription}` : ` is saved in ${file}`}`,
    );
    printer.line(`The files the model wrote are in ${folder}`);
    printer.line(
      style.dim(
        `More: ${arbor} sessions show ${short} --tree${storeFlag} · ${arbor} sessions export ${short} --format html -o tour.html${storeFlag}`,
      ),
    );
    resume = `  cd ${shellWord(folder)} && ${arbor} -r ${short} --provider anthropic${storeFlag}`;
  } finally {
    await runtime.dispose();
  }
  if (problems.length > 0) {
    io.stderr.write(
      `arbor tour: something did not go as scripted:\n${problems.map((problem) => `  - ${problem}`).join("\n")}\n`,
    );
    return 1;
  }
  printer.line(style.dim(`Tour finished in ${((Date.now() - started) / 1000).toFixed(1)} s.`));
  // The last line is a command that works as printed, from any directory (stdin piped: a one-shot prompt).
  printer.line(style.heading("Continue it with a real model (ANTHROPIC_API_KEY set, or add --api-key KEY):"));
  printer.line(resume);
  return 0;
}
