import type { SessionEntry } from "@arbor/session-store";

/** How the `recall` tool shows an entry: a header naming it, then its exact content as text. */

export interface Rendered {
  /** `### <id> · <what> · <time>` */
  header: string;
  /** What the entry is: `user`, `assistant (provider/model)`, `tool result of read (call …)`, … */
  what: string;
  body: string;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content);
  return content
    .map((block: { type?: string; text?: string; mimeType?: string; data?: string }) => {
      if (block.type === "text") return block.text ?? "";
      if (block.type === "image") {
        const bytes = Math.floor(((block.data?.length ?? 0) * 3) / 4);
        return `[image ${block.mimeType ?? ""}, ${bytes} bytes, not included]`;
      }
      return JSON.stringify(block);
    })
    .join("\n");
}

function renderMessage(message: Record<string, unknown>): { what: string; body: string } {
  switch (message.role) {
    case "user":
      return { what: "user", body: contentText(message.content) };
    case "assistant": {
      const parts: string[] = [];
      for (const block of (message.content ?? []) as Record<string, unknown>[]) {
        if (block.type === "text") parts.push(String(block.text ?? ""));
        else if (block.type === "thinking") {
          parts.push(
            block.redacted === true ? "[thinking, redacted]" : `[thinking]\n${String(block.thinking)}`,
          );
        } else if (block.type === "toolCall") {
          parts.push(`[tool call ${String(block.name)}, id ${String(block.id)}]\n${json(block.arguments)}`);
        } else parts.push(json(block));
      }
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        parts.push(`[response ${message.stopReason}: ${String(message.errorMessage ?? "no message")}]`);
      }
      return {
        what: `assistant (${String(message.provider)}/${String(message.model)})`,
        body: parts.join("\n\n"),
      };
    }
    case "toolResult":
      return {
        what: `tool result of ${String(message.toolName)} (call ${String(message.toolCallId)})${message.isError === true ? ", error" : ""}`,
        body: contentText(message.content),
      };
    case "custom":
      return { what: `custom message (${String(message.customType)})`, body: contentText(message.content) };
    case "bashExecution": {
      const status =
        message.cancelled === true
          ? "\n[cancelled]"
          : typeof message.exitCode === "number" && message.exitCode !== 0
            ? `\n[exit code ${message.exitCode}]`
            : "";
      return {
        what: "shell command run by the user",
        body: `$ ${String(message.command)}\n${String(message.output ?? "")}${status}`,
      };
    }
    default:
      return { what: `${String(message.role)} message`, body: json(message) };
  }
}

export function renderEntry(entry: SessionEntry): Rendered {
  let what: string;
  let body: string;
  if (entry.type === "message") ({ what, body } = renderMessage(entry.message as Record<string, unknown>));
  else if (entry.type === "custom_message") {
    what = `custom message (${entry.customType})`;
    body = contentText(entry.content);
  } else if (entry.type === "branch_summary") {
    what = "summary of an abandoned branch";
    body = entry.summary;
  } else {
    what = `${entry.type} entry`;
    body = json(entry);
  }
  return { header: `### ${entry.id} · ${what} · ${entry.timestamp}`, what, body };
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
