/**
 * Writes the expected context of every session file in `fixtures/pi-sessions/` (and its `v1/`, `v2/`, `v3/`
 * folders) as the REAL pi agent computes it: `@mariozechner/pi-coding-agent@0.73.1` opens a copy of the file
 * (`SessionManager.open`, which migrates versions 1 and 2 as pi does), builds the context of the current leaf
 * (`buildSessionContext()`) and converts it to LLM messages (`convertToLlm`). The result is stored beside each
 * file as `<name>.pi-context.json` in a compact but complete form: per message its role, its text (a preview
 * and a hash of the whole), its tool calls (id, name, a hash of the arguments), or for a tool result its
 * `toolCallId`, `toolName` and `isError`. `packages/app-runtime/test/pi-corpus.test.ts` compares Arbor's
 * context of the same file with it.
 *
 * Needs the npm registry: pi is installed into a folder of os.tmpdir() on first use (later runs reuse it).
 * Tests never run this script; run it after adding a file to the corpus:
 *
 *   pnpm exec tsx scripts/pi-session-contexts.ts
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { installPiAgent, piHome } from "../bench/src/pi-agent.ts";
import {
  compactLlmMessages,
  type PiContextFile,
  sourceText,
} from "../packages/app-runtime/test/pi-context-form.js";

const PI_VERSION = "0.73.1";
const PACKAGE = "@mariozechner/pi-coding-agent";
const CORPUS = join(import.meta.dirname, "../fixtures/pi-sessions");

interface PiSessionManager {
  buildSessionContext(): { messages: unknown[] };
  getLeafId(): string | null;
}
interface PiModule {
  SessionManager: { open(path: string, sessionDir?: string): PiSessionManager };
  convertToLlm(messages: unknown[]): unknown[];
}
/** pi-ai's `transformMessages` (what every pi provider applies before encoding a request). */
type TransformMessages = (messages: unknown[], model: Record<string, unknown>) => unknown[];

/**
 * The model the request is prepared for: one of another provider than any in the corpus (as when a session
 * is continued with a different model), taking images — Arbor's scripted test model.
 */
const TARGET_MODEL = {
  id: "scripted-model",
  provider: "scripted",
  api: "scripted",
  input: ["text", "image"],
};

/** Installs pi (once) and imports its library entry point and pi-ai's `transformMessages`. */
async function loadPi(): Promise<{ pi: PiModule; transformMessages: TransformMessages }> {
  const dir = installPiAgent(PI_VERSION);
  if (typeof dir !== "string") throw new Error(dir.skipped);
  const home = piHome(PI_VERSION);
  const pi = (await import(pathToFileURL(join(dir, "dist", "index.js")).href)) as PiModule;
  // Not a public export of pi-ai: its file in the installed package (pi-ai is pi's own dependency).
  const transform = join(
    home,
    "node_modules",
    "@mariozechner",
    "pi-ai",
    "dist",
    "providers",
    "transform-messages.js",
  );
  const { transformMessages } = (await import(pathToFileURL(transform).href)) as {
    transformMessages: TransformMessages;
  };
  return { pi, transformMessages };
}

/** The corpus's session files, relative to the corpus folder. */
function corpusFiles(): string[] {
  const files: string[] = [];
  for (const folder of ["", "v1", "v2", "v3"]) {
    const dir = join(CORPUS, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith(".jsonl")) files.push(folder === "" ? name : `${folder}/${name}`);
    }
  }
  return files;
}

/** The file's JSON with one message a line (readable in a diff, a fraction of the size of indented JSON). */
function formatContextFile(file: PiContextFile): string {
  const lines = ["{"];
  const entries = Object.entries(file);
  entries.forEach(([key, value], index) => {
    const comma = index === entries.length - 1 ? "" : ",";
    if (!Array.isArray(value) || key === "input") {
      lines.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value)}${comma}`);
      return;
    }
    lines.push(`  ${JSON.stringify(key)}: [`);
    value.forEach((item, position) => {
      lines.push(`    ${JSON.stringify(item)}${position === value.length - 1 ? "" : ","}`);
    });
    lines.push(`  ]${comma}`);
  });
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

const { pi, transformMessages } = await loadPi();
const scratch = mkdtempSync(join(tmpdir(), "arbor-pi-contexts-"));
try {
  for (const file of corpusFiles()) {
    // pi migrates an old file by rewriting it: it only ever sees a copy.
    const copy = join(scratch, basename(file));
    copyFileSync(join(CORPUS, file), copy);
    const manager = pi.SessionManager.open(copy, join(scratch, "sessions"));
    const context = manager.buildSessionContext();
    // Converted one by one, to know which user messages come from summaries and shell commands (each
    // agent words those its own way: the form keeps their essence); the same as converting them at once.
    const sources = new Map<unknown, { role: string; text: string }>();
    const converted: unknown[] = [];
    for (const message of context.messages as Record<string, unknown>[]) {
      const text = sourceText(message);
      for (const llm of pi.convertToLlm([message])) {
        if (text !== undefined) sources.set(llm, { role: String(message.role), text });
        converted.push(llm);
      }
    }
    const sourceOf = (message: unknown) => sources.get(message);
    const messages = compactLlmMessages(converted, sourceOf);
    const request = compactLlmMessages(transformMessages(converted, TARGET_MODEL), sourceOf);
    const expected: PiContextFile = {
      source: file,
      pi: `${PACKAGE}@${PI_VERSION}`,
      how: "SessionManager.open(copy) → buildSessionContext() → convertToLlm(); request: pi-ai transformMessages() for the target model",
      targetModel: TARGET_MODEL,
      leafId: manager.getLeafId(),
      messages,
      request,
    };
    const target = join(CORPUS, file.replace(/\.jsonl$/, ".pi-context.json"));
    writeFileSync(target, formatContextFile(expected));
    const pairs = messages.filter((message) => message.role === "toolResult").length;
    console.log(`${file}: ${messages.length} messages, ${pairs} tool results`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
