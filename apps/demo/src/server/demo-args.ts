/**
 * The flags of `pnpm demo` (the same names as `arbor`'s: `--provider`, `--model`, `--base-url`,
 * `--api-key`, `--store`, `--no-session`) plus `--port`, `--tour`, `--pace` and `--cwd`, parsed with Node's
 * `parseArgs` into {@link DemoOptions}. A mistake is one message that says what to do.
 */
import { parseArgs } from "node:util";
import { PERMISSION_MODES, type PermissionMode } from "@arbor/app-runtime/names";
import type { DemoOptions } from "./start-demo.js";

/** The help text of `pnpm demo`. */
export const DEMO_USAGE = `Usage: pnpm demo [options]   (also: arbor demo [options])

The Arbor web demo: the session tree, live, in a browser, on http://127.0.0.1.
Offline with the scripted model unless a provider, model or base URL is named.

Options:
  --port <n>             the port (default 4173; 0 picks a free one)
  --tour                 run the scripted tour live, so the tree has something to show at once
  --pace <ms>            pause between the scripted model's streamed chunks (default 8)
  --cwd <dir>            where the agent's tools run (default: a fresh temporary folder; --cwd . for here)
  --provider <name>      anthropic, openai, ollama, vllm, …, scripted (as arbor --provider)
  --model <provider/id>  the model, e.g. anthropic/claude-sonnet-5-5
  --base-url <url>       an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1
  --api-key <key>        the API key (default: the provider's environment variable; never sent to the page)
  --store <url>          the session store: jsonl:DIR, sqlite:FILE or postgres://… (default ~/.arbor)
  --no-session           keep sessions in memory only
  --extension <path>     load an extension (repeatable); its commands become buttons on the page
  --no-extensions        load no extension (not even those of ~/.arbor/extensions and .arbor/extensions)
  --permissions <mode>   auto (default), ask, edits or plan: ask asks on the page (docs/permissions.md)
  -h, --help             show this help`;

/** What the flags ask for: options, or the help, or a mistake. */
export type ParsedDemoArgs =
  | { kind: "run"; options: DemoOptions }
  | { kind: "help" }
  | { kind: "error"; message: string };

function whole(value: string | undefined, flag: string, max: number): number | string | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > max)
    return `${flag} needs a whole number from 0 to ${max}.`;
  return number;
}

/**
 * Parses the demo's arguments (without `node` and the script).
 *
 * Contract: never throws; an unknown flag or a bad value is `{ kind: "error" }` with the message to print.
 */
export function parseDemoArgs(args: readonly string[]): ParsedDemoArgs {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: {
        port: { type: "string" },
        tour: { type: "boolean" },
        pace: { type: "string" },
        cwd: { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        "base-url": { type: "string" },
        "api-key": { type: "string" },
        store: { type: "string" },
        "no-session": { type: "boolean" },
        extension: { type: "string", multiple: true },
        "no-extensions": { type: "boolean" },
        permissions: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return {
      kind: "error",
      message: `${error instanceof Error ? error.message : String(error)} (--help lists the options)`,
    };
  }
  if (values.help === true) return { kind: "help" };
  const port = whole(values.port as string | undefined, "--port", 65_535);
  if (typeof port === "string") return { kind: "error", message: port };
  const pace = whole(values.pace as string | undefined, "--pace", 10_000);
  if (typeof pace === "string") return { kind: "error", message: pace };
  const mode = values.permissions as string | undefined;
  if (mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(mode)) {
    return { kind: "error", message: `--permissions needs one of ${PERMISSION_MODES.join(", ")}.` };
  }
  const text = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const options: DemoOptions = {
    ...(port === undefined ? {} : { port }),
    ...(pace === undefined ? {} : { pace }),
    ...(values.tour === true ? { tour: true } : {}),
    ...(mode === undefined ? {} : { permissions: mode as PermissionMode }),
    ...(values["no-session"] === true ? { persistent: false } : {}),
    ...(values["no-extensions"] === true
      ? { extensions: false as const }
      : Array.isArray(values.extension)
        ? { extensions: values.extension }
        : {}),
  };
  for (const [flag, key] of [
    ["provider", "provider"],
    ["model", "model"],
    ["base-url", "baseUrl"],
    ["api-key", "apiKey"],
    ["store", "store"],
    ["cwd", "cwd"],
  ] as const) {
    const value = text(flag);
    if (value !== undefined) options[key] = value;
  }
  return { kind: "run", options };
}
