/**
 * The result of each command of the protocol: {@link CommandResults} maps a command's `type` to the type
 * of its response's `data` — the same objects the dispatcher's handlers return, so a client
 * (`@arbor/app-runtime/client`) reads typed answers. Types only: this module is safe for a browser.
 */

import type { AgentMessage } from "@arbor/agent-core";
import type { ThinkingLevel } from "@arbor/ai-providers";
import type { HarnessPhase } from "@arbor/harness";
import type { ExtensionCommandInfo } from "../extensions/extension-api.js";
import type { BranchDiffResult } from "../operations/diff-branches.js";
import type { EditResult } from "../operations/edit-message.js";
import type { ForkResult } from "../operations/fork-session.js";
import type { LabelResult } from "../operations/label-entry.js";
import type { SessionPage } from "../operations/list-sessions.js";
import type { MergeResult } from "../operations/merge-branch.js";
import type { NavigateResult } from "../operations/navigate-tree.js";
import type { CompactResult, OpenedSessionResult } from "../operations/session-operations.js";
import type {
  ContextResult,
  EntryResult,
  GraphResult,
  SummaryResult,
  TranscriptResult,
} from "../operations/view-queries.js";
import type { PermissionRequest } from "../permissions/permission-gate.js";
import type { SessionDeletion } from "../sessions/delete-sessions.js";
import type { ImportSessionResult } from "../sessions/import-session.js";
import type { RpcCommandType } from "./rpc-commands.js";

/** `get_state`'s result: the session's state, for clients that render a footer. */
export interface SessionStateResult {
  sessionId: string;
  /** The session's file (JSONL store). */
  file?: string;
  cwd: string;
  persistent: boolean;
  /** `provider/id`. */
  model: string;
  thinkingLevel: ThinkingLevel;
  activeTools: readonly string[];
  phase: HarnessPhase;
  isBusy: boolean;
  isStreaming: boolean;
  leafId: string | null;
  name?: string;
  messageCount: number;
  entryCount: number;
  contextUsage: { tokens: number; contextWindow: number; percent: number; compactionThreshold: number };
  queued: { steering: number; followUp: number; nextTurn: number };
  errorMessage?: string;
  /** The permission questions waiting for an answer (a page opened after one was asked shows them). */
  permissionRequests?: readonly PermissionRequest[];
}

/**
 * `prompt`'s result: the session it runs in. For a slash command (`/compact`, `/name …`, an extension's
 * command) `command` is true and `name` names it (its notices come as `notice` records); `editorText` is
 * the text the terminal would have put back into its editor.
 */
export interface PromptResult {
  sessionId: string;
  command?: true;
  name?: string;
  editorText?: string;
}

/** The `data` of each command's successful response, by command `type` (`undefined`: no `data`). */
export interface CommandResults {
  prompt: PromptResult;
  steer: undefined;
  follow_up: undefined;
  abort: { aborted: boolean };
  permission_reply: { answered: boolean };
  compact: CompactResult;
  navigate: NavigateResult;
  fork: ForkResult;
  get_state: SessionStateResult;
  get_messages: { messages: readonly AgentMessage[] };
  set_model: { model: string; contextWindow: number };
  get_commands: { commands: ExtensionCommandInfo[] };
  run_command: { name: string };
  set_thinking_level: { thinkingLevel: ThinkingLevel };
  get_graph: GraphResult;
  get_entry: EntryResult;
  get_summary: SummaryResult;
  get_context: ContextResult;
  get_transcript: TranscriptResult;
  label: LabelResult;
  edit: EditResult;
  diff: BranchDiffResult;
  merge: MergeResult;
  list_sessions: SessionPage;
  new_session: OpenedSessionResult;
  open_session: OpenedSessionResult;
  delete_sessions: SessionDeletion;
  import_session: ImportSessionResult;
}

/** The result of the command `K`. */
export type CommandResult<K extends RpcCommandType> = CommandResults[K];
