/**
 * @internal/conformance — shared suites every implementation runs (private, never built). Importing
 * this module imports vitest.
 */
export {
  type DescribeProviderOptions,
  describeProvider,
  type ProviderCapabilities,
  type ProviderFixture,
} from "./describe-provider.js";
export { PROVIDER_SCENARIOS, type ProviderScenarioName, scenarioContext, WEATHER_TOOL } from "./scenarios.js";
export {
  type DescribeSessionStoreOptions,
  describeSessionStore,
  type SessionStoreSuite,
} from "./session-store/describe-session-store.js";
export { checkStreamProtocol } from "./stream-protocol.js";
