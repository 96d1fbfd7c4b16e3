import type { ImageContent } from "@arbor/ai-providers";
import { InvalidPromptError } from "./errors.js";
import type { AgentMessage } from "./types.js";

/** What `Agent.prompt()`, `steer()` and `followUp()` accept: text, one message, or several. */
export type PromptInput = string | AgentMessage | readonly AgentMessage[];

/**
 * Turns prompt input into messages (docs/reference/agent-core.md): a string becomes
 * `{ role: "user", content: [{ type: "text", text }, ...images], timestamp }`; a message becomes
 * `[message]`; a list is copied.
 *
 * Contract: throws {@link InvalidPromptError} (code `invalid_prompt`) for an empty list, an entry that
 * is not an object with a string `role`, or `images` given with anything but a string.
 */
export function normalizePromptInput(input: PromptInput, images?: readonly ImageContent[]): AgentMessage[] {
  if (typeof input === "string") {
    return [
      {
        role: "user",
        content: [{ type: "text", text: input }, ...(images ?? [])],
        timestamp: Date.now(),
      },
    ];
  }
  if (images !== undefined && images.length > 0) {
    throw new InvalidPromptError(
      "Images can only be passed with a text prompt; put them in the message's content instead.",
    );
  }
  const messages: AgentMessage[] = Array.isArray(input) ? [...input] : [input as AgentMessage];
  if (messages.length === 0) throw new InvalidPromptError("The prompt has no messages.");
  for (const [index, message] of messages.entries()) {
    if (
      typeof message !== "object" ||
      message === null ||
      typeof (message as { role?: unknown }).role !== "string"
    ) {
      throw new InvalidPromptError(
        `Prompt message ${index} is not a message: expected an object with a string "role", received ${describe(message)}.`,
      );
    }
  }
  return messages;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object with keys ${Object.keys(value).join(", ") || "(none)"}`;
  return typeof value;
}
