/**
 * The commands extensions registered (`registerCommand`; `get_commands`), one button each with a line for
 * its arguments, run through `run_command`; the notices extensions send (`ui.notify`) are listed under them.
 * Hidden when no extension registered a command and none sent a notice.
 */
import { useEffect, useState } from "react";
import { command } from "./api.js";

/** One command, as `get_commands` lists it. */
interface CommandInfo {
  name: string;
  description: string;
  arguments?: string;
}

/** A notice an extension sent, or a slash command typed in the prompt (`source`: `/name`). */
export interface ExtensionNoticeView {
  level: string;
  message: string;
  source?: string;
}

/** Props of {@link ExtensionCommands}. */
export interface ExtensionCommandsProps {
  notices: readonly ExtensionNoticeView[];
  onError: (message: string) => void;
}

/** The panel (see the module comment). */
export function ExtensionCommands(props: ExtensionCommandsProps) {
  const [commands, setCommands] = useState<CommandInfo[]>([]);
  const [argumentsOf, setArgumentsOf] = useState<Record<string, string>>({});
  const { onError } = props;
  useEffect(() => {
    command({ type: "get_commands" })
      .then((answer) => setCommands(answer.commands))
      .catch((error: Error) => onError(error.message));
  }, [onError]);
  if (commands.length === 0 && props.notices.length === 0) return null;
  return (
    <div className="extension-commands" data-testid="extension-commands">
      <strong>{commands.length > 0 ? "Extension commands" : "Notices"}</strong>
      {commands.map((item) => (
        <div key={item.name} className="extension-command">
          <button
            type="button"
            data-testid={`command-${item.name}`}
            title={item.description}
            onClick={() => {
              const args = argumentsOf[item.name] ?? "";
              command({ type: "run_command", name: item.name, args }).catch((error: Error) =>
                onError(error.message),
              );
            }}
          >
            /{item.name}
          </button>
          <input
            aria-label={`arguments of /${item.name}`}
            placeholder={item.arguments ?? item.description}
            value={argumentsOf[item.name] ?? ""}
            onChange={(event) => setArgumentsOf((all) => ({ ...all, [item.name]: event.target.value }))}
          />
        </div>
      ))}
      {props.notices.length > 0 && (
        <ul className="extension-notices" data-testid="extension-notices">
          {props.notices.map((notice, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: notices are appended only, never reordered
            <li key={index} className={`notice-${notice.level}`} data-source={notice.source}>
              {notice.source?.startsWith("/") ? <code>{notice.source}</code> : null} {notice.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
