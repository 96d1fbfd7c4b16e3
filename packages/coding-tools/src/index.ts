/**
 * @arbor/coding-tools — the tools of a coding agent as `AgentTool`s: `read`, `write`, `edit`, `bash`,
 * `ls`, `grep` and `find`, each resolving paths against a working directory and capping what it returns
 * (2,000 lines / 50 KB) with hints a model can act on; failures are `isError` results, never throws.
 */

export {
  type BashToolArguments,
  type BashToolDetails,
  type BashToolOptions,
  createBashTool,
  DEFAULT_BASH_TIMEOUT_SECONDS,
} from "./bash-tool.js";
export {
  CODING_TOOL_NAMES,
  type CodingToolName,
  type CodingToolsOptions,
  createCodingTools,
} from "./coding-tools.js";
export {
  createEditTool,
  type EditToolArguments,
  type EditToolDetails,
  type EditToolOptions,
  normalizeEditArguments,
} from "./edit-tool.js";
export { CodingToolsError, type CodingToolsErrorCode, InvalidToolOptionError } from "./errors.js";
export {
  defaultFileMutationQueue,
  FileMutationQueue,
  fileQueueKey,
  withFileQueue,
} from "./file-mutation-queue.js";
export {
  createFindTool,
  DEFAULT_FIND_LIMIT,
  type FindToolArguments,
  type FindToolDetails,
  type FindToolOptions,
} from "./find-tool.js";
export {
  createGrepTool,
  DEFAULT_GREP_LIMIT,
  DEFAULT_GREP_LINE_LENGTH,
  type GrepToolArguments,
  type GrepToolDetails,
  type GrepToolOptions,
} from "./grep-tool.js";
export {
  createLsTool,
  DEFAULT_LS_LIMIT,
  type LsToolArguments,
  type LsToolDetails,
  type LsToolOptions,
} from "./ls-tool.js";
export { displayPath, resolveToolPath } from "./paths.js";
export { listProjectFiles, type ProjectFileList, type ProjectFileQuery } from "./project-files.js";
export {
  createReadTool,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_MAX_LINE_LENGTH,
  type ReadToolArguments,
  type ReadToolDetails,
  type ReadToolOptions,
} from "./read-tool.js";
export { editDistance } from "./similar-paths.js";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatBytes,
  type OutputLimits,
  type TailTruncation,
  truncateTail,
} from "./truncate.js";
export { VERSION } from "./version.js";
export {
  createWriteTool,
  type WriteToolArguments,
  type WriteToolDetails,
  type WriteToolOptions,
} from "./write-tool.js";
