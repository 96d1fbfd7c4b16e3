// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The entry point of `arbor`'s interactive mode (the default on a terminal). The CLI core loads this module
 * with a dynamic `import()`, so ink, React and marked are loaded only when the interactive mode runs.
 */

import type { AppRuntime } from "@arbor/app-runtime";
import type { InteractiveController } from "@arbor/app-runtime/input";
import { render } from "ink";
import { buildCommit } from "../version-line.js";
import { App } from "./app.js";
import { enableBracketedPaste } from "./bracketed-paste.js";
import { colorWanted, createTheme } from "./theme.js";
import { createSessionView } from "./use-session-view.js";

/** Options of {@link runInteractive}. */
export interface RunInteractiveOptions {
  /** Sent as the first prompt (e.g. `arbor "fix the tests"`). */
  initialPrompt?: string;
  /** Where keys come from (default `process.stdin`); must be a TTY. */
  stdin?: NodeJS.ReadStream;
  /** Where the UI is drawn (default `process.stdout`). */
  stdout?: NodeJS.WriteStream;
  /** Where the refusal to start without a terminal is written (default `process.stderr`). */
  stderr?: NodeJS.WriteStream;
  /** Colours on or off (default: on unless `NO_COLOR` is set). */
  color?: boolean;
  /**
   * Receives the controller once the app is up (for tests).
   *
   * Contract: called once, after the first render; must not throw.
   */
  onController?: (controller: InteractiveController) => void;
}

/**
 * Runs the interactive UI over `runtime` until the user quits (`/quit`, or Ctrl-C twice while idle);
 * resolves to the exit code.
 *
 * Contract: resolves 0 after a quit, with the session idle (a run in flight is aborted and its pending
 * writes saved); resolves 1 without drawing anything when `stdin` is not a terminal. The runtime stays
 * open: disposing it is the caller's job. Bracketed paste is on while the UI runs and off after it, on
 * every way out.
 */
export async function runInteractive(
  runtime: AppRuntime,
  options: RunInteractiveOptions = {},
): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (stdin.isTTY !== true) {
    (options.stderr ?? process.stderr).write(
      'arbor: the interactive mode needs a terminal. Use -p "prompt" (or pipe a prompt on stdin) to print an answer.\n',
    );
    return 1;
  }
  const theme = createTheme(options.color ?? colorWanted());
  const store = createSessionView(runtime.persistent);
  const session = runtime.session;
  const commit = buildCommit();
  store.append({
    kind: "banner",
    title: `arbor ${runtime.version}${commit === undefined ? "" : ` (commit ${commit})`}`,
    lines: [
      `session ${session.id}${runtime.storeDescription === undefined ? " (not saved)" : ` in ${runtime.storeDescription}`}`,
      "/help lists the commands · Esc stops a run · Ctrl-C twice quits",
    ],
  });
  store.attach(session);
  const bracketedPasteOff = enableBracketedPaste(stdout);
  const instance = render(
    <App
      runtime={runtime}
      store={store}
      theme={theme}
      initialPrompt={options.initialPrompt}
      onController={options.onController}
    />,
    {
      stdin,
      stdout,
      exitOnCtrlC: false,
      // Console output (e.g. a harness reporting a failed hook) is drawn above the UI instead of through it;
      // ink needs a real `console.Console` for that (test runners replace the console).
      patchConsole: typeof console.Console === "function",
    },
  );
  try {
    await instance.waitUntilExit();
  } finally {
    store.detach();
    instance.cleanup();
    bracketedPasteOff();
  }
  return 0;
}
