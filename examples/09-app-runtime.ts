/**
 * 09 — an app in fifteen lines: `createAppRuntime` with defaults (the provider chosen from the flags,
 * else the settings, the keys in the environment, a local server; the JSONL store in the Arbor home; the
 * coding tools). Here the flags name the offline demo model and the home is a temporary folder.
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/09-app-runtime.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAppRuntime } from "@arbor/app-runtime";

const runtime = await createAppRuntime({
  cwd: process.cwd(),
  env: { ...process.env, ARBOR_HOME: mkdtempSync(join(tmpdir(), "arbor-example-09-")) },
  providers: {
    anthropic: () => import("@arbor/provider-anthropic"),
    openai: () => import("@arbor/provider-openai"),
    scripted: () => import("@arbor/app-runtime/demo"),
  },
  stores: { jsonl: () => import("@arbor/session-store-jsonl") },
  flags: { provider: "scripted" },
});
runtime.session.subscribe((event) => {
  if (event.type === "message_end" && event.message.role === "assistant") {
    const text = event.message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    console.log(`assistant: ${text}`);
  }
});
await runtime.session.prompt("hello");
console.log(`model: ${runtime.model.provider}/${runtime.model.id}`);
console.log(`session ${runtime.session.id} saved in ${runtime.sessionFile}`);
await runtime.dispose();
