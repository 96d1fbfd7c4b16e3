import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  judgeToolCall,
  PERMISSION_MODES,
  type PermissionPolicy,
  type PermissionRule,
  parsePermissionRule,
  parsePermissionRules,
  resolvePermissionPolicy,
  shellCommandParts,
} from "../src/permissions/index.js";
import { loadSettings } from "../src/settings.js";
import { writeJson } from "./helpers.js";

const cwd = mkdtempSync(join(tmpdir(), "arbor-permissions-"));

function rules(...texts: string[]): PermissionRule[] {
  const parsed = parsePermissionRules(texts, "test");
  expect(parsed.errors).toEqual([]);
  return parsed.rules;
}

function policy(mode: PermissionPolicy["mode"], allow: string[] = [], deny: string[] = []): PermissionPolicy {
  return { mode, allow: rules(...allow), deny: rules(...deny) };
}

const bash = (command: string) => ({ toolName: "bash", args: { command } });
const write = (path: string) => ({ toolName: "write", args: { path, content: "x" } });
const edit = (path: string) => ({ toolName: "edit", args: { path, edits: [] } });
const read = (path: string) => ({ toolName: "read", args: { path } });

describe("parsePermissionRule", () => {
  it("reads the rule forms and says what is wrong with a bad one", () => {
    expect(parsePermissionRule("bash")).toEqual({
      ok: true,
      rule: { kind: "bash", text: "bash", pattern: undefined },
    });
    expect(parsePermissionRule("Bash(npm   test*)")).toMatchObject({
      ok: true,
      rule: { pattern: "npm test*" },
    });
    expect(parsePermissionRule("edit(./src/**)")).toMatchObject({
      ok: true,
      rule: { kind: "path", tool: "edit", pattern: "src/**" },
    });
    expect(parsePermissionRule("mcp__files__read")).toMatchObject({ ok: true, rule: { kind: "mcp" } });
    const bad = parsePermissionRule("shell(ls)");
    expect(bad.ok).toBe(false);
    expect(bad.ok ? "" : bad.error).toMatch(/is not a rule: write tool\(pattern\)/);
    expect(parsePermissionRule("bash()").ok).toBe(false);
    expect(parsePermissionRule("mcp__bad name").ok).toBe(false);
    expect(parsePermissionRules(["bash", "nope"], "permissions.deny").errors).toEqual([
      expect.stringMatching(/^permissions\.deny\[1\]: "nope" is not a rule/),
    ]);
  });
});

describe("shellCommandParts", () => {
  it("splits a compound command at its operators and newlines", () => {
    expect(shellCommandParts("git status && rm -rf x").parts).toEqual(["git status", "rm -rf x"]);
    expect(shellCommandParts("a; b || c & d | e").parts).toEqual(["a", "b", "c", "d", "e"]);
    expect(shellCommandParts('echo "a\nb"\nrm x').parts).toEqual(["echo a\nb", "rm x"]);
    expect(shellCommandParts("(cd x && ls)").parts).toEqual(["cd x", "ls"]);
  });

  it("marks substitutions and file redirections as opaque, but not 2>&1 or /dev/null", () => {
    expect(shellCommandParts("echo $(rm -rf /) ok")).toMatchObject({ opaque: true });
    expect(shellCommandParts("echo $(rm -rf /) ok").parts).toContain("rm -rf /");
    expect(shellCommandParts("echo `rm x`")).toMatchObject({ opaque: true });
    expect(shellCommandParts("echo `rm x`").parts).toContain("rm x");
    expect(shellCommandParts("ls > files.txt").opaque).toBe(true);
    expect(shellCommandParts("cat <(ls)").opaque).toBe(true);
    expect(shellCommandParts("npm test 2>&1 | tee")).toEqual({ parts: ["npm test", "tee"], opaque: false });
    expect(shellCommandParts("npm test > /dev/null")).toEqual({ parts: ["npm test"], opaque: false });
  });
});

describe("judgeToolCall", () => {
  it("judges a compound command by each of its parts", () => {
    const allowed = policy("ask", ["bash(git status)", "bash(npm test*)"]);
    expect(judgeToolCall(allowed, bash("git status"), cwd)).toEqual({
      kind: "allow",
      by: "rule",
      rule: "bash(git status)",
    });
    expect(judgeToolCall(allowed, bash("git status && npm test -- --run"), cwd).kind).toBe("allow");
    expect(judgeToolCall(allowed, bash("git status && rm -rf x"), cwd).kind).toBe("ask");
    expect(judgeToolCall(allowed, bash("git status; rm -rf x"), cwd).kind).toBe("ask");
    expect(judgeToolCall(allowed, bash("git status\nrm -rf x"), cwd).kind).toBe("ask");
    expect(judgeToolCall(allowed, bash("git status > out.txt"), cwd).kind).toBe("ask");
    expect(judgeToolCall(allowed, bash("git status $(rm -rf x)"), cwd).kind).toBe("ask");
    expect(judgeToolCall(allowed, bash("git statusx"), cwd).kind).toBe("ask");
    // The exact whole command (what "for this session" adds) allows it as it is.
    const exact = policy("ask", ["bash(echo $(date))"]);
    expect(judgeToolCall(exact, bash("echo  $(date)"), cwd).kind).toBe("allow");
  });

  it("lets a deny rule win over allow rules and every mode, auto included", () => {
    for (const mode of PERMISSION_MODES) {
      const denying = policy(mode, ["bash", "edit(**)"], ["bash(rm *)", "edit(secret/**)", "read(.env)"]);
      expect(judgeToolCall(denying, bash("rm -rf x"), cwd)).toMatchObject({
        kind: "deny",
        by: "rule",
        rule: "bash(rm *)",
      });
      expect(judgeToolCall(denying, bash("ls && rm -rf x"), cwd).kind).toBe("deny");
      expect(judgeToolCall(denying, bash("echo $(rm -rf x)"), cwd).kind).toBe("deny");
      expect(judgeToolCall(denying, write("secret/a/key.txt"), cwd).kind).toBe("deny");
      expect(judgeToolCall(denying, edit(join(cwd, "secret/b")), cwd).kind).toBe("deny");
      expect(judgeToolCall(denying, write("./secret/c"), cwd).kind).toBe("deny");
      expect(judgeToolCall(denying, read(".env"), cwd).kind).toBe("deny");
      expect(judgeToolCall(denying, read("src/.env"), cwd).kind).toBe("allow");
    }
  });

  it("follows each mode when no rule decides", () => {
    const expected: Record<string, Record<string, string>> = {
      auto: { bash: "allow", write: "allow", edit: "allow", mcp: "allow", read: "allow" },
      ask: { bash: "ask", write: "ask", edit: "ask", mcp: "ask", read: "allow" },
      edits: { bash: "ask", write: "allow", edit: "allow", mcp: "ask", read: "allow" },
      plan: { bash: "deny", write: "deny", edit: "deny", mcp: "deny", read: "allow" },
    };
    for (const mode of PERMISSION_MODES) {
      const judged = {
        bash: judgeToolCall(policy(mode), bash("ls"), cwd).kind,
        write: judgeToolCall(policy(mode), write("a.txt"), cwd).kind,
        edit: judgeToolCall(policy(mode), edit("a.txt"), cwd).kind,
        mcp: judgeToolCall(policy(mode), { toolName: "mcp__files__write", args: {} }, cwd).kind,
        read: judgeToolCall(policy(mode), read("a.txt"), cwd).kind,
      };
      expect(judged, mode).toEqual(expected[mode]);
    }
    const plan = judgeToolCall(policy("plan", ["bash(git status)"]), bash("git status"), cwd);
    expect(plan.kind).toBe("allow");
    const refused = judgeToolCall(policy("plan"), write("a.txt"), cwd);
    expect(refused.kind === "deny" ? refused.reason : "").toMatch(
      /plan mode is read-only.*--permissions auto/,
    );
  });

  it("matches edit rules for writes too, paths relative to the working directory", () => {
    const edits = policy("ask", ["edit(src/**)", "mcp__files"]);
    expect(judgeToolCall(edits, write("src/a/b.ts"), cwd).kind).toBe("allow");
    expect(judgeToolCall(edits, edit(join(cwd, "src", "c.ts")), cwd).kind).toBe("allow");
    expect(judgeToolCall(edits, write("src/../other.ts"), cwd).kind).toBe("ask");
    expect(judgeToolCall(edits, write("/tmp/src/x.ts"), cwd).kind).toBe("ask");
    // A relative pattern never covers a path outside the working directory, and `edits` asks for those.
    const everything = policy("ask", ["edit(**)"]);
    expect(judgeToolCall(everything, write("a/b.ts"), cwd).kind).toBe("allow");
    expect(judgeToolCall(everything, write("/etc/passwd"), cwd).kind).toBe("ask");
    expect(judgeToolCall(everything, write("~/.bashrc"), cwd).kind).toBe("ask");
    expect(judgeToolCall(policy("edits"), edit("/etc/hosts"), cwd).kind).toBe("ask");
    expect(judgeToolCall(policy("ask", ["edit(/tmp/**)"]), write("/tmp/x/y"), cwd).kind).toBe("allow");
    expect(judgeToolCall(edits, { toolName: "mcp__files__read", args: {} }, cwd).kind).toBe("allow");
    expect(judgeToolCall(edits, { toolName: "mcp__filesystem__read", args: {} }, cwd).kind).toBe("ask");
  });

  it("judges a path through a symbolic link by where it leads", () => {
    const root = mkdtempSync(join(tmpdir(), "arbor-permissions-link-"));
    mkdirSync(join(root, "secret"));
    symlinkSync(join(root, "secret"), join(root, "innocent"));
    const denying = policy("auto", [], ["edit(secret/**)"]);
    expect(judgeToolCall(denying, write("innocent/key.txt"), root).kind).toBe("deny");
  });

  it("property: a part no rule covers keeps a compound command from being allowed", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const separator = fc.constantFrom(" && ", " || ", "; ", " | ", " & ", "\n");
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), separator, word, (allowed, sep, other) => {
        fc.pre(!allowed.includes(other));
        const allowRules = allowed.map((name) => `bash(${name})`);
        const judged = policy("ask", allowRules);
        expect(judgeToolCall(judged, bash(allowed.join(sep)), cwd).kind).toBe("allow");
        expect(judgeToolCall(judged, bash([...allowed, other].join(sep)), cwd).kind).toBe("ask");
        const denying = policy("auto", ["bash"], [`bash(${other})`]);
        expect(judgeToolCall(denying, bash([...allowed, other].join(sep)), cwd).kind).toBe("deny");
      }),
    );
  });
});

describe("permissions in settings.json", () => {
  it("joins the rules of the global and project files; the project's mode and the flag win", () => {
    const home = mkdtempSync(join(tmpdir(), "arbor-permissions-home-"));
    const project = mkdtempSync(join(tmpdir(), "arbor-permissions-project-"));
    writeJson(join(home, "settings.json"), { permissions: { mode: "plan", deny: ["bash(rm *)"] } });
    writeJson(join(project, ".arbor", "settings.json"), {
      permissions: { mode: "ask", allow: ["bash(git status)"], deny: ["read(.env)"] },
    });
    const { settings } = loadSettings(home, project);
    expect(settings.permissions).toEqual({
      mode: "ask",
      allow: ["bash(git status)"],
      deny: ["bash(rm *)", "read(.env)"],
    });
    const fromSettings = resolvePermissionPolicy(settings.permissions, undefined);
    expect(fromSettings.mode).toBe("ask");
    expect(fromSettings.deny.map((rule) => rule.text)).toEqual(["bash(rm *)", "read(.env)"]);
    expect(resolvePermissionPolicy(settings.permissions, "auto").mode).toBe("auto");
    expect(resolvePermissionPolicy(undefined, undefined).mode).toBe("auto");
  });

  it("refuses a bad rule or mode, naming the file and the field", () => {
    const home = mkdtempSync(join(tmpdir(), "arbor-permissions-bad-"));
    writeJson(join(home, "settings.json"), { permissions: { deny: ["bash", "rm(x)"] } });
    expect(() => loadSettings(home, home)).toThrow(
      /settings\.json:\n {2}permissions\.deny\[1\]: "rm\(x\)" is not a rule/,
    );
    writeJson(join(home, "settings.json"), { permissions: { mode: "yolo" } });
    expect(() => loadSettings(home, home)).toThrow(/permissions\.mode/);
  });
});
