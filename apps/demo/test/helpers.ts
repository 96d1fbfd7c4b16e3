import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AppRuntime, createAppRuntime } from "@arbor/app-runtime";
import { type DemoOptions, type RunningDemo, startDemo } from "../src/index.js";

/** A JSON value read loosely (the tests check its fields). */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
export type Json = any;

/**
 * An app runtime on the offline demo model with the JSONL store in a temporary home (no tools, no
 * extensions, compaction keeping only the last turn); the folder goes into `folders`, for the caller to
 * remove.
 */
export async function offlineRuntime(folders: string[], prefix = "arbor-demo-runtime-"): Promise<AppRuntime> {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return createAppRuntime({
    cwd: folder,
    env: { HOME: folder },
    home: join(folder, "home"),
    providers: { scripted: () => import("@arbor/app-runtime/demo") },
    stores: { jsonl: () => import("@arbor/session-store-jsonl") },
    flags: { provider: "scripted" },
    tools: false,
    extensions: false,
    compaction: { keepRecentTokens: 20 },
  });
}

/** A demo on a free port, sessions in a temporary Arbor home, a stand-in page; `stop()` removes it all. */
export async function testDemo(
  options: DemoOptions = {},
): Promise<{ demo: RunningDemo; token: string; base: string; stop: () => Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), "arbor-demo-test-"));
  const webRoot = join(folder, "web");
  mkdirSync(webRoot);
  writeFileSync(join(webRoot, "index.html"), "<!doctype html><title>demo</title>");
  const demo = await startDemo({
    port: 0,
    pace: 0,
    coalesceMs: 0,
    cwd: folder,
    home: join(folder, "home"),
    env: { HOME: folder },
    webRoot,
    ...options,
  });
  const token = new URL(demo.url).searchParams.get("token")!;
  return {
    demo,
    token,
    base: `http://127.0.0.1:${demo.server.port}`,
    stop: async () => {
      await demo.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP request (so that `Host` and the path can be anything); resolves to the status and body. */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            headers: response.headers,
          }),
        );
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Sends a command with the token; resolves to the parsed answer and its status. */
export async function command(
  base: string,
  token: string,
  body: Record<string, unknown>,
): Promise<{ status: number; answer: { ok: boolean; data?: Json; error?: string } }> {
  const response = await fetch(`${base}/api/command`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-arbor-token": token },
    body: JSON.stringify(body),
  });
  return { status: response.status, answer: (await response.json()) as { ok: boolean; data?: Json } };
}

/** Reads server-sent events from the stream until `until` says stop; resolves to the events read. */
export async function readEvents(
  base: string,
  token: string,
  until: (events: { id: number; event: string; data: Json }[]) => boolean,
  lastEventId?: number,
): Promise<{ id: number; event: string; data: Json }[]> {
  const controller = new AbortController();
  const response = await fetch(`${base}/api/events?token=${token}`, {
    headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
    signal: controller.signal,
  });
  const events: { id: number; event: string; data: Json }[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = response.body!.getReader();
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        let id = -1;
        let event = "message";
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = Number(line.slice(4));
          else if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data !== "") events.push({ id, event, data: JSON.parse(data) });
      }
    }
  } finally {
    controller.abort();
  }
  return events;
}
