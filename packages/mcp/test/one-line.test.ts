import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { describeFailure, oneLine, quoted } from "../src/one-line.js";

describe("one-line messages", () => {
  it("a schema validator's multi-line list of issues becomes its first issue, with its path", () => {
    const parsed = ResultSchema.safeParse("not an object");
    expect(parsed.success).toBe(false);
    expect(String(parsed.error?.message)).toContain("\n");
    expect(describeFailure(parsed.error)).toMatch(/^expected object, received string$|^Invalid input/);
    expect(describeFailure(parsed.error)).not.toContain("\n");
    const many = { issues: [{ path: ["content", 0, "text"], message: "expected string" }, {}, {}] };
    expect(describeFailure(many)).toBe("content.0.text: expected string (and 2 more problems)");
  });

  it("an error with a stack or line breaks in its message is flattened and clipped", () => {
    expect(describeFailure(new Error("boom\n    at x (y.js:1:2)"))).toBe("boom at x (y.js:1:2)");
    expect(oneLine("a".repeat(400))).toHaveLength(300);
    expect(describeFailure("plain")).toBe("plain");
    expect(quoted("two\nlines")).toBe('"two\\nlines"');
    expect(quoted("x".repeat(100))).toHaveLength(82);
  });
});
