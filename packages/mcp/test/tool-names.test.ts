import { describe, expect, it } from "vitest";
import {
  allowsMcpServer,
  allowsMcpTool,
  assignMcpToolNames,
  isValidToolName,
  mcpServerPart,
  mcpToolName,
} from "../src/index.js";

/** A 100-character tool name. */
const LONG = `search_${"a".repeat(40)}_${"b".repeat(40)}_repository_issues`.slice(0, 100);

describe("tool names the model APIs accept", () => {
  it("a 100-character tool name is shortened to 64: a readable head, `_` and 8 hex digits of a hash", () => {
    const name = mcpToolName("github", LONG);
    expect(LONG).toHaveLength(100);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^mcp__github__search_a+_[0-9a-f]{8}$/);
    expect(isValidToolName(name)).toBe(true);
    // Deterministic: the same server and tool give the same name on every run.
    expect(mcpToolName("github", LONG)).toBe(name);
    // Two long names with the same head differ by their hash.
    expect(mcpToolName("github", `${LONG.slice(0, 99)}z`)).not.toBe(name);
    expect(mcpToolName("gitlab", LONG)).not.toBe(name);
  });

  it("names that fit stay as they were (other characters made `_`)", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my.server", "do/it")).toBe("mcp__my_server__do_it");
    expect(mcpToolName("s", "a".repeat(56))).toBe(`mcp__s__${"a".repeat(56)}`); // exactly 64
    expect(mcpToolName("s", "a".repeat(57))).toMatch(/^mcp__s__a{47}_[0-9a-f]{8}$/);
  });

  it("an empty tool name, or one that cleans to no letter or digit, gets a valid name of its own", () => {
    const empty = mcpToolName("s", "");
    const bangs = mcpToolName("s", "!!!");
    const unicode = mcpToolName("s", "日本語");
    for (const name of [empty, bangs, unicode]) {
      expect(name).toMatch(/^mcp__s__tool_[0-9a-f]{8}$/);
      expect(isValidToolName(name)).toBe(true);
    }
    expect(new Set([empty, bangs, unicode]).size).toBe(3);
  });

  it("a server name over 40 characters is shortened in its tools' names; the name still fits", () => {
    const server = "x".repeat(60);
    expect(mcpServerPart(server)).toMatch(/^x{31}_[0-9a-f]{8}$/);
    const name = mcpToolName(server, LONG);
    expect(name).toMatch(/^mcp__x{31}_[0-9a-f]{8}__search_a_[0-9a-f]{8}$/);
    expect(name).toHaveLength(64);
    expect(mcpToolName(server, "echo")).toBe(`mcp__${mcpServerPart(server)}__echo`);
  });
});

describe("assignMcpToolNames: unique among all tools offered", () => {
  it("`x.y` and `x_y` both stay usable: `x_y` keeps its exact name, `x.y` gets a hash", () => {
    const names = assignMcpToolNames([
      { server: "s", tool: "x.y" },
      { server: "s", tool: "x_y" },
    ]);
    expect(names[1]).toBe("mcp__s__x_y");
    expect(names[0]).toMatch(/^mcp__s__x_y_[0-9a-f]{8}$/);
    // The order of the listing does not matter.
    expect(
      assignMcpToolNames([
        { server: "s", tool: "x_y" },
        { server: "s", tool: "x.y" },
      ]),
    ).toEqual([names[1], names[0]]);
  });

  it("two names that both need cleaning (`x.y`, `x/y`) both get a hash; alone, `x.y` keeps the clean name", () => {
    const names = assignMcpToolNames([
      { server: "s", tool: "x.y" },
      { server: "s", tool: "x/y" },
    ]);
    expect(names[0]).toMatch(/^mcp__s__x_y_[0-9a-f]{8}$/);
    expect(names[1]).toMatch(/^mcp__s__x_y_[0-9a-f]{8}$/);
    expect(names[0]).not.toBe(names[1]);
    expect(assignMcpToolNames([{ server: "s", tool: "x.y" }])).toEqual(["mcp__s__x_y"]);
  });

  it("a reserved name (a built-in tool's) is never taken; one identity twice still gets two names", () => {
    const [echo] = assignMcpToolNames([{ server: "s", tool: "echo" }], ["mcp__s__echo"]);
    expect(echo).toMatch(/^mcp__s__echo_[0-9a-f]{8}$/);
    const twice = assignMcpToolNames([
      { server: "s", tool: "echo" },
      { server: "s", tool: "echo" },
      { server: "s", tool: "echo" },
    ]);
    expect(twice[0]).toBe("mcp__s__echo");
    expect(new Set(twice).size).toBe(3);
  });

  it("a tool literally named like another's hashed name keeps it; the other moves to its next hash", () => {
    const hashed = assignMcpToolNames([
      { server: "s", tool: "x.y" },
      { server: "s", tool: "x_y" },
    ])[0]!;
    const literal = hashed.slice("mcp__s__".length);
    const names = assignMcpToolNames([
      { server: "s", tool: "x.y" },
      { server: "s", tool: "x_y" },
      { server: "s", tool: literal },
    ]);
    expect(names[2]).toBe(hashed);
    expect(names[0]).toMatch(/^mcp__s__x_y_[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(3);
  });

  it("every name is valid and unique over a large, messy set", () => {
    const tools = ["", "!", "a.b", "a_b", "a-b", LONG, `${LONG}!`, "x".repeat(64), "echo", "echo "].flatMap(
      (tool) => [
        { server: "s", tool },
        { server: "t".repeat(50), tool },
      ],
    );
    const names = assignMcpToolNames(tools);
    for (const name of names) expect(isValidToolName(name)).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("allow lists with shortened names", () => {
  const short = mcpToolName("github", LONG);

  it("a shortened tool is admitted by its shortened name, by its full name, and by mcp__<server>", () => {
    expect(allowsMcpTool(short, "github", short, LONG)).toBe(true);
    expect(allowsMcpTool(`mcp__github__${LONG}`, "github", short, LONG)).toBe(true);
    expect(allowsMcpTool("mcp__github", "github", short, LONG)).toBe(true);
    expect(allowsMcpTool("mcp__gitlab", "github", short, LONG)).toBe(false);
  });

  it("the full name does not admit a tool renamed only to tell it apart (`x.y` next to `x_y`)", () => {
    const [dotted] = assignMcpToolNames([
      { server: "s", tool: "x.y" },
      { server: "s", tool: "x_y" },
    ]);
    expect(allowsMcpTool("mcp__s__x_y", "s", dotted!, "x.y")).toBe(false);
    expect(allowsMcpTool(dotted!, "s", dotted!, "x.y")).toBe(true);
  });

  it("allowsMcpServer starts the server for any of these entries, and for a long server's shortened part", () => {
    expect(allowsMcpServer([short], "github")).toBe(true);
    expect(allowsMcpServer([`mcp__github__${LONG}`], "github")).toBe(true);
    expect(allowsMcpServer(["read"], "github")).toBe(false);
    const server = "x".repeat(60);
    const name = mcpToolName(server, "echo");
    expect(allowsMcpServer([name], server)).toBe(true);
    expect(allowsMcpServer([`mcp__${server}`], server)).toBe(true);
    expect(allowsMcpTool(`mcp__${server}__echo`, server, name, "echo")).toBe(true);
  });
});
