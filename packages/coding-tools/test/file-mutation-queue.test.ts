import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createEditTool,
  createWriteTool,
  defaultFileMutationQueue,
  FileMutationQueue,
  fileQueueKey,
  withFileQueue,
} from "../src/index.js";
import { callTool, tempDirectory } from "./helpers.js";

function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

describe("FileMutationQueue", () => {
  it("runs the mutations of one file one at a time, in order, and different files concurrently", async () => {
    const cwd = await tempDirectory({ "a.txt": "", "b.txt": "" });
    const queue = new FileMutationQueue();
    const log: string[] = [];
    let running = 0;
    let mostRunning = 0;
    const mutation = (name: string) => async () => {
      running++;
      mostRunning = Math.max(mostRunning, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const a = join(cwd, "a.txt");
    const results = await Promise.all([
      queue.run(a, mutation("a1")),
      queue.run(a, mutation("a2")),
      queue.run(a, mutation("a3")),
    ]);
    expect(results).toEqual(["a1", "a2", "a3"]);
    expect(log).toEqual(["start a1", "end a1", "start a2", "end a2", "start a3", "end a3"]);
    expect(mostRunning).toBe(1);
    mostRunning = 0;
    await Promise.all([queue.run(a, mutation("a")), queue.run(join(cwd, "b.txt"), mutation("b"))]);
    expect(mostRunning).toBe(2);
    expect(queue.pendingFiles).toBe(0);
  });

  it("goes on after a failing mutation, which rejects its own call only", async () => {
    const cwd = await tempDirectory();
    const queue = new FileMutationQueue();
    const path = join(cwd, "x.txt");
    const failing = queue.run(path, async () => {
      await tick();
      throw new Error("boom");
    });
    const next = queue.run(path, () => "ran");
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ran");
    expect(queue.pendingFiles).toBe(0);
  });

  it("keys files by real path: relative spellings, symbolic links and files not yet created", async () => {
    const cwd = await tempDirectory({ "dir/file.txt": "" });
    await symlink(join(cwd, "dir"), join(cwd, "alias"));
    const real = join(cwd, "dir", "file.txt");
    expect(await fileQueueKey(join(cwd, "alias", "file.txt"))).toBe(real);
    expect(await fileQueueKey(join(cwd, "dir", ".", "..", "dir", "file.txt"))).toBe(real);
    expect(await fileQueueKey(join(cwd, "alias", "new", "later.txt"))).toBe(
      join(cwd, "dir", "new", "later.txt"),
    );
  });
});

describe("parallel mutations through the tools", () => {
  it("applies twenty parallel edits of one file, all of them", async () => {
    const lines = Array.from({ length: 20 }, (_, index) => `value ${index} = old`);
    const cwd = await tempDirectory({ "f.txt": `${lines.join("\n")}\n` });
    const edit = createEditTool(cwd);
    const results = await Promise.all(
      lines.map((_, index) =>
        callTool(edit, {
          path: index % 2 === 0 ? "f.txt" : "./f.txt",
          edits: [{ oldText: `value ${index} = old`, newText: `value ${index} = new` }],
        }),
      ),
    );
    expect(results.every((result) => result.isError === undefined)).toBe(true);
    const expected = lines.map((line) => line.replace("old", "new")).join("\n");
    expect(await readFile(join(cwd, "f.txt"), "utf8")).toBe(`${expected}\n`);
  });

  it("orders a write and edits of one file through the shared queue, with withFileQueue too", async () => {
    const cwd = await tempDirectory();
    const path = join(cwd, "g.txt");
    const write = createWriteTool(cwd);
    const edit = createEditTool(cwd);
    await callTool(write, { path: "g.txt", content: "one two three\n" });
    let contentSeen = "";
    const context = { toolCallId: "call", signal: new AbortController().signal, onUpdate: () => {} };
    // execute() queues its mutation synchronously, so these three queue in this order.
    const [first, second, outside] = await Promise.all([
      edit.execute({ path: "g.txt", edits: [{ oldText: "one", newText: "1" }] }, context),
      edit.execute({ path: "g.txt", edits: [{ oldText: "three", newText: "3" }] }, context),
      withFileQueue(path, async () => {
        contentSeen = await readFile(path, "utf8");
        return "done";
      }),
    ]);
    expect([first.isError, second.isError, outside]).toEqual([undefined, undefined, "done"]);
    expect(contentSeen).toBe("1 two 3\n");
    expect(defaultFileMutationQueue.pendingFiles).toBe(0);
  });
});
