import { ArborError } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import {
  CODING_TOOL_NAMES,
  CodingToolsError,
  createCodingTools,
  createReadTool,
  FileMutationQueue,
  InvalidToolOptionError,
} from "../src/index.js";
import { callTool, tempDirectory } from "./helpers.js";

describe("createCodingTools", () => {
  it("creates the seven tools in a stable order, each with a concise description and an object schema", async () => {
    const cwd = await tempDirectory();
    const tools = createCodingTools({ cwd });
    expect(tools.map((tool) => tool.name)).toEqual(["read", "write", "edit", "bash", "ls", "grep", "find"]);
    expect(CODING_TOOL_NAMES).toEqual(tools.map((tool) => tool.name));
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(tool.description.length).toBeLessThan(400);
      expect(tool.parameters.type).toBe("object");
      expect(tool.label).toBeTypeOf("string");
    }
  });

  it("creates only the tools of an allow list, and passes each tool's options", async () => {
    const cwd = await tempDirectory({ "a.txt": "1\n2\n3\n" });
    const tools = createCodingTools({ cwd, tools: ["ls", "read"], read: { maxLines: 2 } });
    expect(tools.map((tool) => tool.name)).toEqual(["read", "ls"]);
    expect(tools[0]!.description).toContain("at most 2 lines");
    const result = await callTool(tools[0]!, { path: "a.txt" });
    expect(result.text).toBe("1\n2\n\n[Showing lines 1-2 of 3. Use offset=3 to continue.]");
  });

  it("shares the given file queue between write and edit", async () => {
    const cwd = await tempDirectory();
    const keys: string[] = [];
    class RecordingQueue extends FileMutationQueue {
      override run<T>(path: string, mutation: () => Promise<T> | T): Promise<T> {
        keys.push(path);
        return super.run(path, mutation);
      }
    }
    const tools = createCodingTools({ cwd, tools: ["write", "edit"], fileQueue: new RecordingQueue() });
    await callTool(tools[0]!, { path: "x.txt", content: "a" });
    await callTool(tools[1]!, { path: "x.txt", edits: [{ oldText: "a", newText: "b" }] });
    expect(keys).toEqual([`${cwd}/x.txt`, `${cwd}/x.txt`]);
  });

  it("throws a typed error for a missing cwd, an unknown tool and an invalid limit", () => {
    const attempts = [
      () => createCodingTools({ cwd: "" }),
      () => createCodingTools({} as never),
      () => createCodingTools({ cwd: "/", tools: ["read", "rm" as never] }),
      () => createReadTool("/", { maxLines: 0 }),
      () => createCodingTools({ cwd: "/", bash: { defaultTimeoutSeconds: -1 } }),
    ];
    const messages: string[] = [];
    for (const attempt of attempts) {
      try {
        attempt();
        expect.unreachable("should throw");
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidToolOptionError);
        expect(CodingToolsError.isInstance(error)).toBe(true);
        expect(ArborError.isInstance(error)).toBe(true);
        expect((error as InvalidToolOptionError).code).toBe("invalid_option");
        messages.push((error as Error).message);
      }
    }
    expect(messages[0]).toBe(
      'Invalid option "cwd": expected the directory the tools work in, as a non-empty string.',
    );
    expect(messages[2]).toBe(
      'Invalid option "tools": unknown tool "rm"; the coding tools are read, write, edit, bash, ls, grep, find.',
    );
    expect(messages[3]).toBe('Invalid option "read.maxLines": expected a positive integer, received 0.');
  });
});
