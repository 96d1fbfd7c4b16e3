import { type Static, Type } from "@arbor/ai-providers";
import { stringOtherThan } from "./schema-kinds.js";

/**
 * TypeBox schemas of the messages stored in `message` entries, field for field those of the pi agent's
 * version-3 session files (and of `@arbor/ai-providers`' message types, which share that vocabulary).
 * Objects allow fields they do not name: unknown fields are data, kept on every round trip.
 */

/** A piece of plain text. */
export const TextContentSchema = Type.Object(
  {
    type: Type.Literal("text"),
    text: Type.String(),
    textSignature: Type.Optional(
      Type.String({ description: "Opaque provider token, sent back unchanged to the same model." }),
    ),
  },
  { title: "TextContent", description: "A piece of plain text." },
);

/** Model reasoning. */
export const ThinkingContentSchema = Type.Object(
  {
    type: Type.Literal("thinking"),
    thinking: Type.String({ description: "The reasoning text (empty when `redacted`)." }),
    thinkingSignature: Type.Optional(
      Type.String({ description: "The provider's opaque signature or encrypted reasoning item." }),
    ),
    redacted: Type.Optional(
      Type.Boolean({ description: "True when the provider returned the reasoning only in encrypted form." }),
    ),
  },
  { title: "ThinkingContent", description: "Model reasoning." },
);

/** An image as base64 data. */
export const ImageContentSchema = Type.Object(
  {
    type: Type.Literal("image"),
    data: Type.String({ description: "Base64-encoded bytes." }),
    mimeType: Type.String({ description: "e.g. `image/png`." }),
  },
  { title: "ImageContent", description: "An image as base64 data with its MIME type." },
);

/** A tool call requested by the model. */
export const ToolCallSchema = Type.Object(
  {
    type: Type.Literal("toolCall"),
    id: Type.String({ description: "The provider's id of the call; its result carries it as `toolCallId`." }),
    name: Type.String({ description: "The tool's name." }),
    arguments: Type.Record(Type.String(), Type.Unknown(), { description: "The parsed JSON arguments." }),
    thoughtSignature: Type.Optional(Type.String({ description: "Opaque provider token of the call." })),
  },
  { title: "ToolCall", description: "A tool call requested by the model." },
);

/** Text or image: what users, tool results and custom messages may hold. */
export const UserContentBlockSchema = Type.Union([TextContentSchema, ImageContentSchema]);

/** What an assistant message may hold. */
export const AssistantContentBlockSchema = Type.Union([
  TextContentSchema,
  ThinkingContentSchema,
  ToolCallSchema,
]);

/** Cost in US dollars, split like the usage counters. */
export const UsageCostSchema = Type.Object(
  {
    input: Type.Number(),
    output: Type.Number(),
    cacheRead: Type.Number(),
    cacheWrite: Type.Number(),
    total: Type.Number(),
  },
  { title: "UsageCost", description: "Cost in US dollars." },
);

/** Token usage of one assistant response. */
export const UsageSchema = Type.Object(
  {
    input: Type.Number({ description: "Input tokens, cached tokens excluded." }),
    output: Type.Number({ description: "Output tokens." }),
    cacheRead: Type.Number({ description: "Input tokens read from the prompt cache." }),
    cacheWrite: Type.Number({ description: "Input tokens written to the prompt cache." }),
    totalTokens: Type.Number({ description: "The sum of the four counters." }),
    cost: UsageCostSchema,
  },
  { title: "Usage", description: "Token usage of one assistant response, with its cost." },
);

/** Why an assistant message ended. */
export const StopReasonSchema = Type.Union(
  [
    Type.Literal("stop"),
    Type.Literal("length"),
    Type.Literal("toolUse"),
    Type.Literal("error"),
    Type.Literal("aborted"),
  ],
  { description: "Why the response ended." },
);

/** A message written by the user. */
export const UserMessageSchema = Type.Object(
  {
    role: Type.Literal("user"),
    content: Type.Union([Type.String(), Type.Array(UserContentBlockSchema)]),
    timestamp: Type.Number({ description: "Epoch milliseconds." }),
  },
  { title: "UserMessage", description: "A message written by the user." },
);

/** A message produced by a model. */
export const AssistantMessageSchema = Type.Object(
  {
    role: Type.Literal("assistant"),
    content: Type.Array(AssistantContentBlockSchema),
    api: Type.String({ description: "The wire protocol, e.g. `anthropic-messages`, `openai-completions`." }),
    provider: Type.String({ description: "The provider's id." }),
    model: Type.String({ description: "The model's id." }),
    responseId: Type.Optional(Type.String({ description: "The provider's id of the response." })),
    usage: UsageSchema,
    stopReason: StopReasonSchema,
    errorMessage: Type.Optional(
      Type.String({ description: "What went wrong, when `stopReason` is `error` or `aborted`." }),
    ),
    notices: Type.Optional(
      Type.Array(Type.String(), {
        description: "Parts of the response the provider could not read, in words; never sent to a model.",
      }),
    ),
    timestamp: Type.Number({ description: "Epoch milliseconds." }),
  },
  { title: "AssistantMessage", description: "A message produced by a model." },
);

/** The result of one tool call. */
export const ToolResultMessageSchema = Type.Object(
  {
    role: Type.Literal("toolResult"),
    toolCallId: Type.String({ description: "The `id` of the tool call this answers." }),
    toolName: Type.String(),
    content: Type.Array(UserContentBlockSchema),
    details: Type.Optional(
      Type.Unknown({ description: "Structured data for UIs; never sent to the model." }),
    ),
    isError: Type.Boolean(),
    timestamp: Type.Number({ description: "Epoch milliseconds." }),
  },
  { title: "ToolResultMessage", description: "The result of one tool call, sent back to the model." },
);

/** An application-defined message that takes part in the model's context (as a user message). */
export const CustomMessageSchema = Type.Object(
  {
    role: Type.Literal("custom"),
    customType: Type.String({ description: "Identifies the extension or feature that wrote it." }),
    content: Type.Union([Type.String(), Type.Array(UserContentBlockSchema)]),
    display: Type.Boolean({ description: "Whether a UI shows it (`false`: hidden)." }),
    details: Type.Optional(Type.Unknown({ description: "Application data; never sent to the model." })),
    timestamp: Type.Number({ description: "Epoch milliseconds." }),
  },
  {
    title: "CustomMessage",
    description:
      "An application-defined message that the model sees as a user message (version 2 called this role `hookMessage`).",
  },
);

/** A shell command the user ran directly (the pi agent's `!command`). */
export const BashExecutionMessageSchema = Type.Object(
  {
    role: Type.Literal("bashExecution"),
    command: Type.String(),
    output: Type.String(),
    exitCode: Type.Optional(Type.Number({ description: "Absent when the command did not exit normally." })),
    cancelled: Type.Boolean(),
    truncated: Type.Boolean(),
    fullOutputPath: Type.Optional(Type.String({ description: "Where the untruncated output was saved." })),
    excludeFromContext: Type.Optional(
      Type.Boolean({ description: "True when the model must not see it (the pi agent's `!!command`)." }),
    ),
    timestamp: Type.Number({ description: "Epoch milliseconds." }),
  },
  {
    title: "BashExecutionMessage",
    description:
      "A shell command the user ran directly, with its output; the model sees it as a user message.",
  },
);

/** Roles of the messages this version knows. */
export const KNOWN_MESSAGE_ROLES = ["user", "assistant", "toolResult", "custom", "bashExecution"] as const;

/** A message of a role this version does not know: kept and passed through unchanged. */
export const OtherRoleMessageSchema = Type.Object(
  {
    role: stringOtherThan(KNOWN_MESSAGE_ROLES),
  },
  {
    title: "OtherRoleMessage",
    description:
      "A message whose role this version does not know (an application's own message type): kept unchanged and passed through to the context.",
  },
);

const KnownStoredMessageSchema = Type.Union([
  UserMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
  CustomMessageSchema,
  BashExecutionMessageSchema,
]);

/**
 * The message of a `message` entry: a known role, or any other role (kept unchanged). The static type
 * names the known roles only, so that `role` narrows; handle other roles in a default branch.
 */
export const StoredMessageSchema = Type.Unsafe<Static<typeof KnownStoredMessageSchema>>(
  Type.Union([...KnownStoredMessageSchema.anyOf, OtherRoleMessageSchema], {
    title: "StoredMessage",
    description: "The message of a `message` entry.",
  }),
);

/** The message of a `message` entry (known roles; see {@link StoredMessageSchema}). */
export type StoredMessage = Static<typeof StoredMessageSchema>;
/** A `custom` message as stored (see {@link CustomMessageSchema}). */
export type StoredCustomMessage = Static<typeof CustomMessageSchema>;
/** A `bashExecution` message as stored (see {@link BashExecutionMessageSchema}). */
export type StoredBashExecutionMessage = Static<typeof BashExecutionMessageSchema>;
