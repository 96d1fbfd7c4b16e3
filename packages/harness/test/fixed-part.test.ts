import { Type } from "@arbor/agent-core";
import type { Tool } from "@arbor/ai-providers";
import { script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { fitFixedPart, fixedPartTokens } from "../src/fixed-part.js";
import { createStoreFixture, createTestHarness } from "./helpers.js";

const LONG = "Reads a file. ".concat(
  "It explains every option at length, with examples and caveats. ".repeat(12),
);

function tool(name: string, description = LONG): Tool {
  return {
    name,
    description,
    parameters: Type.Object({
      path: Type.String({
        description: "The path of the file, relative to the working directory. ".repeat(4),
      }),
      description: Type.Optional(Type.String({ description: "A parameter named description stays." })),
    }),
  };
}

const BUILT_INS = ["read", "bash", "edit", "write", "recall", "grep", "find", "ls"];

describe("fitFixedPart", () => {
  it("sends the tools as they are when they fit", () => {
    const tools = BUILT_INS.map((name) => tool(name));
    const fit = fitFixedPart("You are a coding agent.", tools, 100_000);
    expect(fit.level).toBe("full");
    expect(fit.tools).toBe(tools);
    expect(fit.tokens).toBe(fixedPartTokens("You are a coding agent.", tools));
  });

  it("shortens descriptions to their first sentence and leaves out parameter descriptions", () => {
    const tools = BUILT_INS.map((name) => tool(name));
    const full = fixedPartTokens("prompt", tools);
    const fit = fitFixedPart("prompt", tools, Math.floor(full / 3));
    expect(fit.level).toBe("short");
    expect(fit.tools.map((entry) => entry.name)).toEqual(BUILT_INS);
    expect(fit.tools[0]!.description).toBe("Reads a file.");
    const parameters = fit.tools[0]!.parameters as unknown as {
      properties: Record<string, { description?: string; type: string }>;
      required: string[];
    };
    expect(parameters.properties.path).toEqual({ type: "string" });
    expect(Object.keys(parameters.properties)).toEqual(["path", "description"]);
    expect(parameters.required).toEqual(["path"]);
    expect(fit.tokens).toBeLessThanOrEqual(Math.floor(full / 3));
  });

  it("leaves out tools from MCP servers and extensions first, then ls, find, grep … — never read, bash, edit", () => {
    const tools = [...BUILT_INS.map((name) => tool(name)), tool("mcp__files__read_file"), tool("ext_deploy")];
    const short = fitFixedPart("", tools, fixedPartTokens("", tools) - 1);
    expect(short.level).toBe("short");
    const oneLess = fitFixedPart("", tools, short.tokens - 1);
    expect(oneLess.level).toBe("fewer");
    expect(oneLess.dropped).toEqual(["ext_deploy"]);
    const fit = fitFixedPart("", tools, Math.floor(short.tokens * 0.6));
    expect(fit.dropped.slice(0, 3)).toEqual(["ext_deploy", "mcp__files__read_file", "ls"]);
    expect(fit.tools.map((entry) => entry.name)).toEqual(BUILT_INS.slice(0, fit.tools.length));
    const nothingLeft = fitFixedPart("", tools, 1);
    expect(nothingLeft.tools.map((entry) => entry.name)).toEqual(["read", "bash", "edit"]);
  });
});

describe("the fixed part of a request at a small window", () => {
  it("sends shorter tool definitions to a 4,000-token model and full ones to a 200,000-token one", async () => {
    for (const [contextWindow, level] of [
      [4000, "short"],
      [200_000, "full"],
    ] as const) {
      const fixture = await createStoreFixture("memory");
      const tools = BUILT_INS.slice(0, 4).map((name) => ({
        ...tool(name),
        execute: async () => ({ content: [{ type: "text" as const, text: "ok" }] }),
      }));
      const { harness, provider } = createTestHarness(fixture, {
        steps: [script.text("Hello.")],
        model: { contextWindow },
        harness: { tools: tools as never },
      });
      const session = await harness.newSession();
      await session.prompt("Hi");
      const sent = provider.calls[0]!.context.tools ?? [];
      expect(sent.map((entry) => entry.name)).toEqual(expect.arrayContaining(BUILT_INS.slice(0, 4)));
      const readTool = sent.find((entry) => entry.name === "read")!;
      expect(readTool.description === "Reads a file.").toBe(level === "short");
      await session.close();
      await fixture.cleanup();
    }
  });
});
