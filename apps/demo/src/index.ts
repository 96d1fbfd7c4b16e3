/**
 * @arbor/demo — the Arbor web demo: a server on 127.0.0.1 over `@arbor/app-runtime` and a page that shows
 * the session tree live. `startDemo()` starts it; `runDemoCli()` is `pnpm demo` (and `arbor demo`).
 */

export { DEMO_USAGE, type ParsedDemoArgs, parseDemoArgs } from "./server/demo-args.js";
export { type CommandAnswer, DemoHub, type DemoHubOptions } from "./server/demo-hub.js";
export { DEFAULT_EVENT_CAPACITY, EventLog, type LoggedEvent } from "./server/event-log.js";
export {
  type DemoServer,
  type DemoServerOptions,
  MAX_BODY_BYTES,
  startDemoServer,
} from "./server/http-server.js";
export { type DemoCliIo, runDemo, runDemoCli } from "./server/run-demo-cli.js";
export {
  CONTENT_SECURITY_POLICY,
  checkRequest,
  createToken,
  DEMO_HOST,
} from "./server/security.js";
export {
  DEFAULT_DEMO_PACE_MS,
  DEFAULT_DEMO_PORT,
  type DemoOptions,
  defaultWebRoot,
  type RunningDemo,
  startDemo,
} from "./server/start-demo.js";
export { staticPath } from "./server/static-files.js";
