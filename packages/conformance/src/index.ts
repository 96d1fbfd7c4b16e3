/**
 * @internal/conformance — shared suites every implementation runs, and the local wire-protocol servers the
 * provider and CLI tests share (private, never built). Importing this module imports vitest.
 */
export {
  type DescribeProviderOptions,
  describeProvider,
  type ProviderCapabilities,
  type ProviderFixture,
} from "./describe-provider.js";
export { PROVIDER_SCENARIOS, type ProviderScenarioName, scenarioContext, WEATHER_TOOL } from "./scenarios.js";
export { describeSessionStore } from "./session-store/describe-session-store.js";
export type { DescribeSessionStoreOptions, SessionStoreSuite } from "./session-store/session-store-suite.js";
export {
  type DescribeStreamCorpusOptions,
  describeStreamCorpus,
  readingOfMessage,
} from "./stream-corpus/describe-stream-corpus.js";
export {
  CORPUS_FOLDERS,
  type Json,
  RESPONSE_ENDS,
  readAnthropic,
  readChat,
  readResponses,
  recordingPayloads,
  type StreamReading,
  splitResponses,
} from "./stream-corpus/read-recording.js";
export {
  type CorpusFolder,
  type CorpusRecording,
  corpusFiles,
  loadStreamCorpus,
  type RecordedResponse,
  type RecordingSource,
  readCorpusManifest,
  STREAM_CORPUS_DIR,
} from "./stream-corpus/stream-corpus.js";
export { checkStreamProtocol } from "./stream-protocol.js";
export {
  anthropicScenarioOptions,
  anthropicScenarioReplies,
} from "./wire/anthropic-scenarios.js";
export {
  anthropicErrorBody,
  type FakeAnthropicReply,
  type FakeAnthropicRequest,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from "./wire/anthropic-server.js";
export {
  type AnthropicWireUsage,
  anthropicFixture,
  anthropicSse,
  completeAnthropicStream,
  encodeSseEvent,
  readSseFixture,
  type SseEvent,
} from "./wire/anthropic-sse.js";
export {
  chatChunk,
  chatTextChunks,
  chatToolCallChunks,
  chatToolCallPiece,
  chatToolCallStart,
  chatUsageChunk,
  splitPieces,
} from "./wire/openai-chat-chunks.js";
export { ResponsesStream, type ResponsesUsageFixture } from "./wire/openai-responses-events.js";
export {
  chatFrames,
  type OpenAIWireReply,
  type OpenAIWireRequest,
  type OpenAIWireServer,
  openAIErrorReply,
  responsesFrames,
  startOpenAIWireServer,
} from "./wire/openai-server.js";
export { estimatedRequestTokens, withTokenLimit } from "./wire/token-limit.js";
