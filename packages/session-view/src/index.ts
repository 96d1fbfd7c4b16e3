/**
 * @arbor/session-view: the framework-free, browser-safe state and presentation of a session — a view model
 * attached to a harness session (transcript items, live and footer slices, usage totals, queues), entry
 * views, tree rows, one-line previews and tool-call lines, and the HTML, Markdown and JSONL exporters. What a
 * front end's input does (slash commands, the input controller, the editor's text buffer) is in
 * `@arbor/app-runtime`.
 */
export { type BranchDiffView, branchDiffView, type DiffItem, type DiffSideResult } from "./branch-diff.js";
export {
  type CompactionNotice,
  type CompactionOutcomeWords,
  type ContextMeterReading,
  compactionNotice,
  type UnhelpfulCompaction,
} from "./compaction-notice.js";
export {
  type ContextBreakdown,
  type ContextBreakdownInput,
  type ContextCategory,
  type ContextCategoryKind,
  contextBreakdown,
  fixedContextTokens,
  shownContextTokens,
} from "./context-breakdown.js";
export { type DiffRow, type DiffRows, diffCounts, diffRows, diffTextLines } from "./diff-rows.js";
export { type EntryTextOptions, entryTextLines } from "./entry-text.js";
export {
  type EntryFields,
  type EntryKind,
  type EntryPart,
  type EntryView,
  type EntryViewOptions,
  previewView,
  viewEntry,
} from "./entry-view.js";
export { EventEncoder, type EventEncoderOptions } from "./event-encoder.js";
export { exportHtml, type HtmlExportOptions } from "./export-html.js";
export { exportJsonl, type JsonlExport } from "./export-jsonl.js";
export { exportMarkdown, fenced, type MarkdownExportOptions } from "./export-markdown.js";
export {
  clipText,
  countOf,
  errorText,
  formatCost,
  formatCount,
  formatTimestamp,
  formatTokens,
  type HeadLines,
  headLines,
  singleLine,
} from "./format.js";
export { escapeHtml, markdownHtml } from "./markdown-html.js";
export { type ContentTextOptions, contentText, messageText } from "./message-text.js";
export {
  describePermissionRecord,
  PERMISSION_CUSTOM_TYPE,
  type PermissionDecider,
  type PermissionRecord,
  permissionRecordOf,
} from "./permission-record.js";
export {
  isDeltaEvent,
  PROTOCOL_EVENT_SCHEMAS,
  PROTOCOL_EVENT_VERSION,
  type ProtocolDeltaType,
  type ProtocolEvent,
  type ProtocolEventOf,
  ProtocolEventSchema,
  type ProtocolEventType,
} from "./protocol-events.js";
export { isRetriedFailure, type PrunedTree, withoutRetriedFailures } from "./retried-failures.js";
export { sessionContextBreakdown, sessionContextUsage } from "./session-context.js";
export {
  type GraphNode,
  type GraphNodeKind,
  type SessionGraph,
  type SessionGraphOptions,
  sessionGraph,
} from "./session-graph.js";
export { SessionGraphCache, type SessionGraphCacheOptions } from "./session-graph-cache.js";
export {
  type HarnessTransport,
  harnessSessionState,
  harnessTransport,
  type ProtocolEventListener,
  type SessionHistory,
  type SessionState,
  type SessionTransport,
} from "./session-transport.js";
export { type AttachOptions, SessionViewModel, type SessionViewModelOptions } from "./session-view-model.js";
export { entryRefs, type SummaryCoverage, summaryCoverage } from "./summary-coverage.js";
export { summaryDisplayText } from "./summary-text.js";
export { toolCallFinder } from "./tool-call-finder.js";
export { type ToolArgumentStyle, type ToolCallLineOptions, toolCallLine } from "./tool-call-line.js";
export {
  isFileChangeTool,
  type ParsedDiff,
  parseDiffText,
  type ToolDiff,
  type ToolDiffCall,
  type ToolDiffHunk,
  type ToolDiffLine,
  type ToolDiffLineKind,
  type ToolDiffResult,
  toolDiff,
} from "./tool-diff.js";
export {
  type AssistantBlock,
  itemsOfMessage,
  type NoticeLevel,
  TOOL_DIFF_ROWS,
  type ToolCallInfo,
  type TranscriptItem,
  type TranscriptItemInput,
  type ViewMessage,
} from "./transcript-items.js";
export { type TreeRow, type TreeRows, treeRows } from "./tree-rows.js";
export { type TreeTextOptions, treeTextLines } from "./tree-text.js";
export { type FoldOptions, type RunItem, runItems, type TreeRun, treeRuns } from "./tree-walk.js";
export { addToTotals, EMPTY_TOTALS, sessionUsageTotals, type UsageTotals } from "./usage-totals.js";
export type { FooterView, LiveBlock, LiveView, RunningTool, TranscriptView } from "./view-slices.js";
export type { SessionViewSnapshot } from "./view-store.js";
