/**
 * `@arbor/app-runtime/input` — what a front end's input does, with nothing that renders: the slash-command
 * registry (`/name args` run against a {@link CommandHost}: the session, a {@link CommandRuntime} such as an
 * `AppRuntime`, notices and the pickers the front end draws), the {@link InteractiveController} (prompt,
 * steer, follow-up or command; `!command` and `@path`), the editor's text buffer and file mentions.
 */

export { parseCommandLine } from "./commands/command-line.js";
export {
  type ControllerOptions,
  type ControllerUi,
  InteractiveController,
  type MentionSupport,
  type SubmitKind,
} from "./commands/controller.js";
export {
  browseHistory,
  createEditorBuffer,
  cursorPosition,
  deleteBackward,
  deleteForward,
  deleteToLineEnd,
  deleteToLineStart,
  deleteWordBackward,
  type EditorBuffer,
  expandPastes,
  HISTORY_LIMIT,
  insertText,
  moveCursor,
  moveLine,
  moveToLineEnd,
  moveToLineStart,
  PASTE_COLLAPSE_CHARS,
  PASTE_COLLAPSE_LINES,
  replaceText,
  submitted,
} from "./commands/editor-buffer.js";
export {
  type AttachedPrompt,
  completeMention,
  createFileMentions,
  type FileMentions,
  fileMentions,
} from "./commands/file-mentions.js";
export { type MentionNotice, withFileMentions } from "./commands/mention-input.js";
export {
  attachPermissionQuestions,
  type PermissionQuestionHost,
  permissionPicker,
} from "./commands/permission-questions.js";
export {
  type ProtocolCommandOutcome,
  type ProtocolCommandOutput,
  runProtocolSlashCommand,
} from "./commands/protocol-command-host.js";
export { runUserShellCommand } from "./commands/shell-command.js";
export {
  type CommandExtensionInfo,
  type CommandExtensions,
  type CommandHost,
  type CommandRuntime,
  CommandUsageError,
  type Picker,
  type PickerItem,
  type SlashCommandSpec,
} from "./commands/slash/command-types.js";
export { KEY_HELP } from "./commands/slash/info-commands.js";
export { exportArguments } from "./commands/slash/session-commands.js";
export {
  builtInCommandName,
  commandMenu,
  commandNames,
  completeCommand,
  runSlashCommand,
  SLASH_COMMANDS,
  suggestCommands,
} from "./commands/slash/slash-commands.js";
