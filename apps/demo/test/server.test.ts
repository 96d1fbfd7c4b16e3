import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { command, type Json, rawRequest, readEvents, testDemo } from "./helpers.js";

let context: Awaited<ReturnType<typeof testDemo>>;

beforeAll(async () => {
  context = await testDemo({
    env: { HOME: "/nonexistent", ANTHROPIC_API_KEY: "sk-ant-secret-key-1234" },
    compaction: { keepRecentTokens: 20 },
  });
});

afterAll(async () => {
  await context.stop();
});

describe("the demo's security rules", () => {
  test("a foreign Origin is refused, even with the token", async () => {
    const { demo, token } = context;
    const response = await rawRequest(demo.server.port, "/api/info", {
      headers: { origin: "http://evil.example", "x-arbor-token": token },
    });
    expect(response.status).toBe(403);
    const page = await rawRequest(demo.server.port, "/", { headers: { origin: "http://evil.example" } });
    expect(page.status).toBe(403);
  });

  test("a foreign Host (DNS rebinding) is refused", async () => {
    const { demo, token } = context;
    const response = await rawRequest(demo.server.port, `/api/info?token=${token}`, {
      headers: { host: `evil.example:${demo.server.port}` },
    });
    expect(response.status).toBe(421);
  });

  test("the API needs the token; a wrong one is refused", async () => {
    const { base, token } = context;
    expect((await fetch(`${base}/api/info`)).status).toBe(401);
    expect((await fetch(`${base}/api/events`)).status).toBe(401);
    const wrong = await command(base, `${token}x`, { type: "get_state" });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${base}/api/info`, { headers: { "x-arbor-token": token } });
    expect(right.status).toBe(200);
  });

  test("traversal out of the page's folder and ids that are paths are refused", async () => {
    const { demo, base, token } = context;
    for (const path of [
      "/../../../etc/passwd",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/..%2f..%2fetc%2fpasswd",
      "/.env",
    ]) {
      const response = await rawRequest(demo.server.port, path);
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain("root:");
    }
    const open = await command(base, token, { type: "open_session", sessionId: "../../etc/passwd" });
    expect(open.status).toBe(400);
    const absolute = await command(base, token, { type: "open_session", sessionId: "/etc/passwd" });
    expect(absolute.status).toBe(400);
    const entry = await command(base, token, { type: "get_entry", entryId: "../x" });
    expect(entry.status).toBe(400);
  });

  test("every answer carries a strict Content-Security-Policy; no key or environment reaches the page", async () => {
    const { demo, base, token } = context;
    const page = await rawRequest(demo.server.port, "/");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    const info = await fetch(`${base}/api/info`, { headers: { "x-arbor-token": token } });
    const state = await command(base, token, { type: "get_state" });
    const text = JSON.stringify([await info.json(), state.answer]);
    expect(text).not.toContain("sk-ant-secret");
    expect(text).not.toContain("/nonexistent");
  });

  test("a command must be JSON sent as application/json", async () => {
    const { base, token } = context;
    const form = await fetch(`${base}/api/command`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-arbor-token": token },
      body: JSON.stringify({ type: "get_state" }),
    });
    expect(form.status).toBe(415);
    const unknown = await command(base, token, { type: "rm_rf" });
    expect(unknown.status).toBe(400);
    expect(unknown.answer.error).toContain("Unknown command");
  });
});

describe("the demo's API and events", () => {
  test("a prompt streams its events in order, with ids; the tree gains the nodes; a reconnect resumes", async () => {
    const { base, token } = context;
    const before = await command(base, token, { type: "get_graph" });
    const listening = readEvents(base, token, (events) =>
      events.some((event) => event.data.type === "agent_end"),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = await command(base, token, { type: "prompt", text: "hello there" });
    expect(sent.answer.ok).toBe(true);
    const events = await listening;
    const ids = events.filter((event) => event.event === "message").map((event) => event.id);
    expect(ids.length).toBeGreaterThan(3);
    for (let index = 1; index < ids.length; index++) expect(ids[index]).toBe(ids[index - 1]! + 1);
    const types = events.map((event) => event.data.type);
    expect(types).toContain("text_delta");
    expect(types.indexOf("agent_start")).toBeLessThan(types.indexOf("text_delta"));
    await context.demo.hub.idle();
    const after = await command(base, token, { type: "get_graph" });
    // The prompt and the answer (a new session's model and thinking level join it with its first prompt).
    const turns = (graph: { nodes: { kind: string }[] }) =>
      graph.nodes.filter((node) => node.kind === "user" || node.kind === "assistant").length;
    expect(turns(after.answer.data)).toBe(turns(before.answer.data) + 2);
    // A page that reconnects with the id of an early event gets exactly the events after it.
    const middle = ids[2]!;
    const resumed = await readEvents(
      base,
      token,
      (got) => got.some((event) => event.id === ids.at(-1)),
      middle,
    );
    expect(resumed.filter((event) => event.event === "message").map((event) => event.id)[0]).toBe(middle + 1);
    // A first connection starts at the present: it replays nothing.
    const fresh = await readEvents(base, token, (got) => got.some((event) => event.event === "hello"));
    expect(fresh.filter((event) => event.event === "message")).toEqual([]);
  });

  test("label, compact, navigate with a summary, edit and re-run, diff, fork and merge", async () => {
    const { base, token, demo } = context;
    for (const text of ["first question", "second question", "third question"]) {
      await command(base, token, { type: "prompt", text });
      await demo.hub.idle();
    }
    const graph = (await command(base, token, { type: "get_graph" })).answer.data;
    const users = graph.nodes.filter((node: Json) => node.kind === "user");
    const firstUser = users[1];
    const labelled = await command(base, token, { type: "label", entryId: firstUser.id, label: "start" });
    expect(labelled.answer.ok).toBe(true);
    const compacted = await command(base, token, { type: "compact", instructions: "keep the questions" });
    expect(compacted.answer.ok).toBe(true);
    expect(compacted.answer.data.kind).toBe("compacted");
    const summary = await command(base, token, {
      type: "get_summary",
      entryId: compacted.answer.data.entryId,
    });
    expect(summary.answer.data.coveredCount).toBeGreaterThan(0);
    expect(summary.answer.data.tokensAfter).toBeLessThan(summary.answer.data.tokensBefore);
    const oldLeaf = demo.runtime.session.session.leafId!;
    const moved = await command(base, token, { type: "navigate", entryId: firstUser.id, summarize: true });
    expect(moved.answer.data.summaryEntryId).toBeDefined();
    const branch = await command(base, token, {
      type: "get_summary",
      entryId: moved.answer.data.summaryEntryId,
    });
    expect(branch.answer.data.type).toBe("branch_summary");
    const diff = await command(base, token, {
      type: "diff",
      a: oldLeaf,
      b: demo.runtime.session.session.leafId!,
    });
    expect(diff.answer.data.commonAncestor.id).toBe(firstUser.id);
    expect(diff.answer.data.a.entries).toBeGreaterThan(0);
    const edited = await command(base, token, {
      type: "edit",
      entryId: users[2].id,
      text: "an edited question",
    });
    expect(edited.answer.ok).toBe(true);
    await demo.hub.idle();
    const path = demo.runtime.session.session.getBranch();
    expect(JSON.stringify(path.at(-2))).toContain("an edited question");
    const merged = await command(base, token, { type: "merge", sourceLeafId: oldLeaf, summarize: false });
    expect(merged.answer.data.kind).toBe("merged");
    const source = demo.runtime.session.id;
    const forked = await command(base, token, { type: "fork" });
    expect(forked.answer.data.parentSession).toBe(source);
    expect(demo.runtime.session.id).toBe(forked.answer.data.sessionId);
    const list = await command(base, token, { type: "list_sessions", limit: 1 });
    expect(list.answer.data.sessions).toHaveLength(1);
    expect(list.answer.data.nextCursor).not.toBeNull();
    const next = await command(base, token, {
      type: "list_sessions",
      limit: 1,
      cursor: list.answer.data.nextCursor,
    });
    expect(next.answer.data.sessions[0].id).not.toBe(list.answer.data.sessions[0].id);
    const reopened = await command(base, token, { type: "open_session", sessionId: source });
    expect(reopened.answer.data.sessionId).toBe(source);
    const meter = await command(base, token, { type: "get_context" });
    expect(meter.answer.data.categories.map((category: Json) => category.kind)).toContain("systemPrompt");
  });
});
