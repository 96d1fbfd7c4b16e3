import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "../src/errors.js";
import type { Tool } from "../src/types.js";
import { validateToolArguments } from "../src/validate.js";

const editTool: Tool = {
  name: "edit",
  description: "Edit a file",
  parameters: Type.Object({
    path: Type.String(),
    edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() }), { minItems: 1 }),
    mode: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
    count: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Number({ default: 100 }),
    dryRun: Type.Boolean({ default: false }),
  }),
};

function failureOf(result: ReturnType<typeof validateToolArguments>) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result;
}

describe("validateToolArguments", () => {
  it("accepts valid arguments and fills defaults", () => {
    const args = { path: "a.ts", edits: [{ oldText: "x", newText: "y" }] };
    const result = validateToolArguments(editTool, args);
    expect(result).toEqual({
      ok: true,
      value: { path: "a.ts", edits: [{ oldText: "x", newText: "y" }], limit: 100, dryRun: false },
    });
    expect(args).toEqual({ path: "a.ts", edits: [{ oldText: "x", newText: "y" }] });
  });

  it("converts sloppy scalars before checking", () => {
    const result = validateToolArguments(editTool, {
      path: "a.ts",
      edits: [{ oldText: "x", newText: "y" }],
      limit: "5",
      count: "3",
      dryRun: "true",
    });
    expect(result).toEqual({
      ok: true,
      value: { path: "a.ts", edits: [{ oldText: "x", newText: "y" }], limit: 5, count: 3, dryRun: true },
    });
  });

  it("does not mutate the arguments it converts", () => {
    const args = Object.freeze({ path: "a.ts", edits: Object.freeze([]), limit: "5" });
    const result = failureOf(validateToolArguments(editTool, args));
    expect(args).toEqual({ path: "a.ts", edits: [], limit: "5" });
    expect(result.errors.map((issue) => issue.path)).toEqual(["/edits"]);
  });

  it("reports wrong types, missing properties and nested paths with one issue per path", () => {
    const args = { path: { file: "a.ts" }, edits: [{ oldText: "x" }, { oldText: 1, newText: ["y"] }] };
    const result = failureOf(validateToolArguments(editTool, args));
    expect(result.errors).toEqual([
      {
        path: "/path",
        message: 'expected string, received object {"file":"a.ts"}',
        expected: "string",
        received: 'object {"file":"a.ts"}',
      },
      {
        path: "/edits/0/newText",
        message: "required property missing (expected string)",
        expected: "string",
        received: "undefined (missing)",
      },
      {
        path: "/edits/1/newText",
        message: 'expected string, received array ["y"]',
        expected: "string",
        received: 'array ["y"]',
      },
    ]);
    expect(result.message).toBe(
      [
        'Invalid arguments for tool "edit":',
        '  - /path: expected string, received object {"file":"a.ts"}',
        "  - /edits/0/newText: required property missing (expected string)",
        '  - /edits/1/newText: expected string, received array ["y"]',
        `Received arguments: ${JSON.stringify(args)}`,
      ].join("\n"),
    );
  });

  it("describes enums, literals and numeric bounds", () => {
    const result = failureOf(
      validateToolArguments(editTool, {
        path: "a",
        edits: [{ oldText: "x", newText: "y" }],
        mode: "c",
        count: 0,
      }),
    );
    expect(result.errors).toEqual([
      {
        path: "/mode",
        message: 'expected one of "a" | "b", received string "c"',
        expected: 'one of "a" | "b"',
        received: 'string "c"',
      },
      {
        path: "/count",
        message: "expected integer >= 1, received number 0",
        expected: "integer >= 1",
        received: "number 0",
      },
    ]);
  });

  it("describes array bounds, string bounds and nullable unions", () => {
    const tool: Tool = {
      name: "tags",
      description: "",
      parameters: Type.Object({
        tags: Type.Array(Type.String({ minLength: 1, pattern: "^[a-z]+$" }), { minItems: 1 }),
        note: Type.Union([Type.String({ maxLength: 3 }), Type.Null()]),
      }),
    };
    const result = failureOf(validateToolArguments(tool, { tags: [], note: "abcd" }));
    expect(result.errors).toEqual([
      {
        path: "/tags",
        message:
          "expected array of at least 1 item, each string of at least 1 character, matching /^[a-z]+$/, received array []",
        expected: "array of at least 1 item, each string of at least 1 character, matching /^[a-z]+$/",
        received: "array []",
      },
      {
        path: "/note",
        message: 'expected string of at most 3 characters | null, received string "abcd"',
        expected: "string of at most 3 characters | null",
        received: 'string "abcd"',
      },
    ]);
  });

  it("reports unexpected properties when the schema forbids them", () => {
    const tool: Tool = {
      name: "strict",
      description: "",
      parameters: Type.Object(
        { a: Type.String(), b: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
    };
    const result = failureOf(validateToolArguments(tool, { a: "x", c: 1 }));
    expect(result.errors).toEqual([
      { path: "/c", message: "unexpected property (allowed properties: a, b)", received: "number 1" },
    ]);
  });

  it("reports a non-object at the root", () => {
    for (const [args, received] of [
      [null, "null"],
      [[1, 2], "array [1,2]"],
      ["path", 'string "path"'],
      [undefined, "undefined"],
    ] as const) {
      const result = failureOf(validateToolArguments(editTool, args));
      expect(result.errors).toEqual([
        { path: "", message: `expected object, received ${received}`, expected: "object", received },
      ]);
      expect(result.message.split("\n")[1]).toBe(`  - (root): expected object, received ${received}`);
    }
  });

  it("reports arguments that cannot be cloned at the root instead of throwing", () => {
    const result = failureOf(validateToolArguments(editTool, { path: "a", run: () => 1 }));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: "", expected: "object" });
    expect(result.errors[0]?.message).toMatch(/^arguments are not plain JSON data/);
  });

  it("truncates long strings and the echoed arguments", () => {
    const long = "z".repeat(1_000);
    const result = failureOf(validateToolArguments(editTool, { path: "a", edits: long }));
    expect(result.errors[0]?.received).toBe(`string "${"z".repeat(40)}…"`);
    const echo = result.message.split("\n").at(-1)!;
    expect(echo).toBe(`Received arguments: ${JSON.stringify({ path: "a", edits: long }).slice(0, 500)}…`);
  });

  it("caps the number of issues", () => {
    const tool: Tool = {
      name: "numbers",
      description: "",
      parameters: Type.Object({ list: Type.Array(Type.Number()) }),
    };
    const result = failureOf(validateToolArguments(tool, { list: Array.from({ length: 100 }, () => "x") }));
    expect(result.errors).toHaveLength(30);
    expect(result.errors[29]?.path).toBe("/list/29");
    expect(result.message).toContain("  - (further issues omitted)");
  });

  it("compiles a schema once and validates with it again", () => {
    const tool: Tool = { name: "cached", description: "", parameters: Type.Object({ n: Type.Number() }) };
    const compile = vi.spyOn(TypeCompiler, "Compile");
    try {
      expect(validateToolArguments(tool, { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
      expect(failureOf(validateToolArguments(tool, { n: "x" })).errors[0]?.path).toBe("/n");
      expect(validateToolArguments(tool, { n: "2" })).toEqual({ ok: true, value: { n: 2 } });
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it("throws InvalidArgumentError for parameters that are not a TypeBox schema", () => {
    const tool = {
      name: "raw",
      description: "",
      parameters: { type: "object", properties: {} },
    } as unknown as Tool;
    expect(() => validateToolArguments(tool, {})).toThrow(InvalidArgumentError);
  });
});
