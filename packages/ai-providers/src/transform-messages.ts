import { MISSING_TOOL_RESULT_TEXT, ToolPairing } from "./tool-pairing.js";
import type {
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  TextContent,
  ToolCall,
  UserMessage,
} from "./types.js";

/** Longest tool-call id OpenAI and Anthropic accept. */
const MAX_TOOL_CALL_ID_LENGTH = 64;

/** Characters outside the id alphabet OpenAI and Anthropic accept (`[a-zA-Z0-9_-]`). */
const INVALID_TOOL_CALL_ID_CHARACTERS = /[^a-zA-Z0-9_-]/g;

/** Apis whose tool-call ids must match `^[a-zA-Z0-9_-]{1,64}$`. */
const STRICT_ID_APIS: ReadonlySet<string> = new Set([
  "anthropic-messages",
  "openai-responses",
  "openai-completions",
]);

/** Id used when a strict api receives an empty tool-call id. */
const EMPTY_TOOL_CALL_ID_REPLACEMENT = "call";

/** Text that replaces an image sent to a model whose `input` lacks `"image"`. */
export const OMITTED_IMAGE_TEXT = "[image omitted: the model does not accept images]";

/** Options of {@link transformMessages}. */
export interface TransformMessagesOptions {
  /**
   * Maps a tool-call id produced by another model to one the target model accepts. Defaults to
   * {@link normalizeToolCallId}. It is called once per distinct id; when two ids map to the same
   * result, {@link transformMessages} adds a `_2`, `_3`, … suffix (keeping the id within 64 characters)
   * without calling it again.
   */
  normalizeToolCallId?: (id: string, model: Model) => string;
}

/** Truncates to `length` UTF-16 units without splitting a surrogate pair. */
function truncate(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.charCodeAt(length - 1);
  const splitsPair = cut >= 0xd800 && cut <= 0xdbff;
  return text.slice(0, splitsPair ? length - 1 : length);
}

/**
 * Rewrites a tool-call id into the form the model's api accepts.
 *
 * - `anthropic-messages`, `openai-responses`, `openai-completions`: every character outside
 *   `[a-zA-Z0-9_-]` (the `|` of pi-style Responses ids `call_…|fc_…` included) becomes `_`, and the id
 *   is cut to 64 characters; an empty id becomes `call`.
 * - any other api: the id is only cut to 64 characters when it is longer.
 *
 * Contract: pure and deterministic; an id that is already valid is returned unchanged. Distinct ids may
 * map to the same result — {@link transformMessages} resolves such collisions.
 */
export function normalizeToolCallId(id: string, model: Pick<Model, "api">): string {
  if (!STRICT_ID_APIS.has(model.api)) return truncate(id, MAX_TOOL_CALL_ID_LENGTH);
  const cleaned = id.replace(INVALID_TOOL_CALL_ID_CHARACTERS, "_").slice(0, MAX_TOOL_CALL_ID_LENGTH);
  return cleaned.length > 0 ? cleaned : EMPTY_TOOL_CALL_ID_REPLACEMENT;
}

/** True when the message is dropped whole: a failed or cancelled response. */
function isSkippedAssistant(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

/** True when the assistant message was produced by the target model itself. */
function isFromModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/**
 * Assigns the tool-call ids of the output: ids of the target model's own calls are kept verbatim,
 * ids of other models' calls are normalized and made unique across the conversation.
 */
class ToolCallIdAssigner {
  /** Ids the target model produced itself; never changed, so never given to another call. */
  private readonly ownIds = new Set<string>();
  /** Ids that some call keeps unchanged (own ids and other models' ids already valid). */
  private readonly reserved = new Set<string>();
  /** Own ids already handed out once (a second call with one gets a suffix). */
  private readonly ownGiven = new Set<string>();
  /** Ids already handed out to other models' calls. */
  private readonly used = new Set<string>();
  /** Normalized form of each distinct original id, so the normalizer runs once per id. */
  private readonly candidates = new Map<string, string>();
  /** Next suffix number to try per colliding candidate, so repeated collisions stay linear. */
  private readonly nextSuffix = new Map<string, number>();

  constructor(
    private readonly model: Model,
    private readonly normalize: (id: string, model: Model) => string,
  ) {}

  /** Records a call before assignment starts, so that later ids kept unchanged are not taken first. */
  reserve(id: string, fromTargetModel: boolean): void {
    if (fromTargetModel) {
      this.ownIds.add(id);
      this.reserved.add(id);
    } else if (this.candidate(id) === id) {
      this.reserved.add(id);
    }
  }

  /**
   * The output id of one call: no two calls of the output share one. The target model's own ids are kept
   * verbatim the first time; a repeat (a provider that reused an id) is normalized and suffixed like a
   * collision.
   */
  assign(id: string, fromTargetModel: boolean): string {
    let candidate: string;
    if (fromTargetModel) {
      if (!this.ownGiven.has(id)) {
        this.ownGiven.add(id);
        return id;
      }
      candidate = this.candidate(id);
    } else {
      candidate = this.candidate(id);
      const free =
        candidate === id
          ? !this.ownIds.has(id) && !this.used.has(id)
          : !this.reserved.has(candidate) && !this.used.has(candidate);
      if (free) {
        this.used.add(candidate);
        return candidate;
      }
    }
    let counter = this.nextSuffix.get(candidate) ?? 2;
    let result: string;
    do {
      const suffix = `_${counter}`;
      result = truncate(candidate, MAX_TOOL_CALL_ID_LENGTH - suffix.length) + suffix;
      counter += 1;
    } while (this.reserved.has(result) || this.used.has(result));
    this.nextSuffix.set(candidate, counter);
    this.used.add(result);
    return result;
  }

  private candidate(id: string): string {
    let candidate = this.candidates.get(id);
    if (candidate === undefined) {
      candidate = this.normalize(id, this.model);
      this.candidates.set(id, candidate);
    }
    return candidate;
  }
}

/** Replaces images by a text placeholder when the model cannot read them. */
function transformUserContent<T extends TextContent | ImageContent>(
  content: readonly T[],
  acceptsImages: boolean,
): (T | TextContent)[] {
  return content.map((block) =>
    block.type === "image" && !acceptsImages ? { type: "text", text: OMITTED_IMAGE_TEXT } : { ...block },
  );
}

/** Rewrites the content of an assistant message for the target; returns the kept blocks. */
function transformAssistantContent(
  message: AssistantMessage,
  sameModel: boolean,
  assigner: ToolCallIdAssigner,
  pairing: ToolPairing<Message, undefined>,
): AssistantMessage["content"] {
  const content: AssistantMessage["content"] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        content.push(sameModel ? { ...block } : { type: "text", text: block.text });
        break;
      case "thinking":
        if (sameModel) content.push({ ...block });
        else if (!block.redacted && block.thinking.trim() !== "") {
          content.push({ type: "text", text: block.thinking });
        }
        break;
      case "toolCall": {
        const id = assigner.assign(block.id, sameModel);
        const call: ToolCall = sameModel
          ? { ...block, id }
          : { type: "toolCall", id, name: block.name, arguments: block.arguments };
        content.push(call);
        pairing.call(block.id, id, block.name);
        break;
      }
    }
  }
  return content;
}

/**
 * Prepares a conversation for a target model, which may differ from the models that wrote it.
 *
 * - Assistant messages with `stopReason` `error` or `aborted` are left out, with their tool calls; such
 *   a message does not end the turn before it (a result after it still answers the earlier call).
 * - Assistant messages of the target model itself (same `provider`, `api` and model id) keep their
 *   thinking blocks — signatures and redacted ones included — and all their signatures and tool-call
 *   ids verbatim, except an id that repeats an earlier call's (a provider that reused ids): it gets a
 *   `_2`, `_3`, … suffix, and its results follow the new id, so no id appears twice in the output.
 * - Assistant messages of other models: thinking becomes a text block with the same text (dropped when
 *   blank), redacted thinking is dropped, `textSignature` and `thoughtSignature` are removed, and each
 *   tool-call id is normalized ({@link normalizeToolCallId} or `options.normalizeToolCallId`) and made
 *   unique in the conversation with a `_2`, `_3`, … suffix; its results follow the new id.
 * - Every kept tool call gets exactly one result ({@link ToolPairing} in arrival order). Results are matched to the calls of the last kept
 *   assistant message before them, up to the next user or kept assistant message. An unanswered call
 *   gets a synthetic error result ({@link MISSING_TOOL_RESULT_TEXT}) placed after the last result of
 *   its turn, or after the assistant message; this holds for the last assistant message too, since a
 *   conversation that ends on unanswered calls is broken and no provider accepts it.
 * - A tool result without an open call (an orphan, the result of a skipped message, a second result
 *   for one call) is dropped.
 * - When the target's `input` lacks `"image"`, images in user messages and tool results become the text
 *   block {@link OMITTED_IMAGE_TEXT}.
 * - An assistant message left without content blocks is dropped.
 *
 * Contract: never mutates `messages`; every message and content array in the output is new (content
 * blocks are shallow copies; tool-call `arguments`, result `details` and `usage` are shared). Runs in
 * time linear in the size of the conversation. The synthetic result's `timestamp` is that of the
 * message it follows, so the output is deterministic.
 */
export function transformMessages(
  messages: readonly Message[],
  targetModel: Model,
  options?: TransformMessagesOptions,
): Message[] {
  const assigner = new ToolCallIdAssigner(targetModel, options?.normalizeToolCallId ?? normalizeToolCallId);
  for (const message of messages) {
    if (message.role !== "assistant" || isSkippedAssistant(message)) continue;
    const sameModel = isFromModel(message, targetModel);
    for (const block of message.content) {
      if (block.type === "toolCall") assigner.reserve(block.id, sameModel);
    }
  }

  const acceptsImages = targetModel.input.includes("image");
  const output: Message[] = [];
  const pairing = new ToolPairing<Message, undefined>({
    order: "arrival",
    syntheticTimestamp: "previous",
    emit: (message) => {
      output.push(message);
    },
    answer: (result, outId) => ({
      ...result,
      toolCallId: outId,
      content: transformUserContent(result.content, acceptsImages),
    }),
  });

  for (const message of messages) {
    switch (message.role) {
      case "user": {
        pairing.close();
        const content =
          typeof message.content === "string"
            ? message.content
            : transformUserContent(message.content, acceptsImages);
        const user: UserMessage = { ...message, content };
        pairing.message(user, undefined);
        break;
      }
      case "assistant": {
        if (isSkippedAssistant(message)) break;
        const content = transformAssistantContent(
          message,
          isFromModel(message, targetModel),
          assigner,
          pairing,
        );
        if (content.length > 0) pairing.open({ ...message, content }, undefined);
        else pairing.close();
        break;
      }
      case "toolResult":
        pairing.result(message, undefined);
        break;
    }
  }
  pairing.close();
  return output;
}
