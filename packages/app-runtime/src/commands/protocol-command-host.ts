/**
 * Slash commands typed in a front end that speaks the protocol (the demo's prompt box, an rpc client's
 * `prompt`): the same registry and the same command code as the terminal (`runSlashCommand`), with a host
 * whose answers travel as protocol records. A notice becomes a `notice` record (`source`: `/name`); a
 * picker, which only the terminal draws, becomes a notice listing its rows and how to name one; text the
 * terminal would put back into its editor is returned in the result.
 */
import type { HarnessSession } from "@arbor/harness";
import {
  harnessSessionState,
  type NoticeLevel,
  type SessionTransport,
  SessionViewModel,
  sessionUsageTotals,
} from "@arbor/session-view";
import type { AppRuntime } from "../app-runtime.js";
import type { ExtensionNotice } from "../extensions/extension-api.js";
import { parseCommandLine } from "./command-line.js";
import type { CommandHost, Picker } from "./slash/command-types.js";
import { runSlashCommand, SLASH_COMMANDS } from "./slash/slash-commands.js";

/** Rows of a picker listed in its notice (the rest are counted). */
export const PICKER_ROWS_LISTED = 30;

/** Where a protocol slash command's answers go. */
export interface ProtocolCommandOutput {
  /**
   * Receives each notice of the command, also those that come after it returned (an operation it started).
   *
   * Contract: must not throw.
   */
  notice(notice: ExtensionNotice): void;
  /**
   * Starts a prompt the command asks for (a prompt template, a skill) on the current session.
   *
   * Contract: must not throw; a failure of the run is the caller's to report.
   */
  prompt(text: string): void;
}

/** What running a typed line did. */
export interface ProtocolCommandOutcome {
  /** The command's name (after `/`). */
  name: string;
  /** Text the terminal would have put back into its editor (e.g. the prompt an edit goes back to). */
  editorText?: string;
}

/** A view model that sends its notices out instead of drawing them (a front end draws the records). */
class NoticeForwarder extends SessionViewModel {
  constructor(private readonly forward: (level: NoticeLevel, text: string) => void) {
    super({ streamFrameMs: 0 });
  }

  override notice(level: NoticeLevel, text: string): void {
    this.forward(level, text);
  }

  override showMove(_session: unknown, separator: string): void {
    this.cancelMove();
    this.forward("info", separator);
  }
}

/** The session's footer state and usage totals, without its events (the front end follows those). */
function quietTransport(session: HarnessSession): SessionTransport {
  return {
    subscribe: () => () => {},
    state: () => harnessSessionState(session),
    phase: () => session.phase,
    history: () => {
      let totals: ReturnType<typeof sessionUsageTotals> | undefined;
      try {
        totals = sessionUsageTotals(session.session);
      } catch {
        totals = undefined;
      }
      return { messages: [], warnings: [], totals };
    },
  };
}

function pickerText(picker: Picker, name: string): string {
  const takesArgument = SLASH_COMMANDS.find((command) => command.name === name)?.arguments !== undefined;
  const how = takesArgument
    ? `/${name} opens a picker in the terminal; here, name one: /${name} <first column>`
    : `/${name} opens a picker in the terminal`;
  const rows = picker.items.slice(0, PICKER_ROWS_LISTED).map((item) => {
    const label = typeof item.label === "function" ? item.label(100) : item.label;
    return `  ${item.current ? "*" : " "} ${item.key}  ${label}${item.detail ? `  ${item.detail}` : ""}`;
  });
  const more = picker.items.length - rows.length;
  return [
    `${picker.title} (${how})`,
    ...(rows.length === 0 ? [`  ${picker.emptyText ?? "(nothing to choose)"}`] : rows),
    ...(more > 0 ? [`  … ${more} more`] : []),
  ].join("\n");
}

/**
 * Runs `text` as a slash command when it is one (`/name args`); resolves to undefined when it is not (the
 * caller sends it as a prompt).
 *
 * Contract: never rejects for the command's own failure (it becomes an `error` notice, as in the terminal);
 * notices reach `output.notice` in order; a command refused while the agent runs says so in a notice.
 */
export async function runProtocolSlashCommand(
  runtime: AppRuntime,
  text: string,
  output: ProtocolCommandOutput,
): Promise<ProtocolCommandOutcome | undefined> {
  const parsed = parseCommandLine(text);
  if (parsed === undefined) return undefined;
  const source = `/${parsed.name}`;
  const send = (level: NoticeLevel, message: string) =>
    output.notice({ level: level === "success" ? "info" : level, message, source });
  const store = new NoticeForwarder(send);
  store.attach(quietTransport(runtime.session), { replay: false });
  let editorText: string | undefined;
  const host: CommandHost = {
    runtime,
    store,
    session: () => runtime.session,
    openPicker: (picker) => send("info", pickerText(picker, parsed.name)),
    prompt: (prompt) => output.prompt(prompt),
    showSession: (separator) => {
      store.attach(quietTransport(runtime.session), { replay: false });
      send("info", separator);
    },
    setEditorText: (value) => {
      editorText = value;
    },
    quit: () => send("info", "/quit leaves the terminal; here there is nothing to leave"),
  };
  await runSlashCommand(text, host);
  return { name: parsed.name, ...(editorText === undefined ? {} : { editorText }) };
}
