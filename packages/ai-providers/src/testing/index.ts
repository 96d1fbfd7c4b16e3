/**
 * Test doubles shipped as a product: a deterministic scripted provider that speaks the real event
 * protocol. Nothing here imports a test framework.
 */

export {
  estimateContextChars,
  type ScriptedCall,
  type ScriptedFailure,
  type ScriptedPart,
  type ScriptedResponse,
  type ScriptedStep,
  type ScriptedToolCall,
  script,
} from "./script.js";
export {
  createScriptedProvider,
  type ScriptedProvider,
  ScriptedProviderError,
  type ScriptedProviderOptions,
  type ScriptedResponder,
} from "./scripted-provider.js";
