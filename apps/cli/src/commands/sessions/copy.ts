/**
 * `arbor sessions copy --from <url> --to <url> [ids…]`: copies sessions between two stores (JSONL,
 * SQLite, PostgreSQL) entry for entry with `copySessions`; without ids, every session of the source.
 */
import { copySessions, type SessionStore } from "@arbor/session-store";
import { countOf } from "@arbor/session-view";
import type { Command } from "commander";
import { runAction, type SessionsCommandDeps, writeLines } from "./context.js";

/** Opens both stores (the source read-only), runs `body`, and closes whatever was opened. */
async function withStores<T>(
  deps: SessionsCommandDeps,
  urls: { from: string; to: string },
  body: (from: SessionStore, to: SessionStore) => Promise<T>,
): Promise<T> {
  const from = await deps.openStore(urls.from, { readOnly: true });
  try {
    const to = await deps.openStore(urls.to, { readOnly: false });
    try {
      return await body(from, to);
    } finally {
      await to.close?.();
    }
  } finally {
    await from.close?.();
  }
}

/** Adds `copy` to the `sessions` command. */
export function addCopyCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("copy")
    .description("copy sessions between stores (jsonl:DIR, sqlite:FILE, postgres://…), entry for entry")
    .requiredOption("--from <url>", "the store to read")
    .requiredOption("--to <url>", "the store to write (it must not hold the sessions yet)")
    .argument("[ids...]", "the session ids to copy (default: every session of --from)")
    .action(
      runAction(deps, "copy", async (ids: string[], options: { from: string; to: string }) => {
        await withStores(deps, options, async (from, to) => {
          const result = await copySessions(from, to, ids.length > 0 ? ids : undefined, {
            onCopied: (sessionId, entries) =>
              writeLines(deps.stdout, [`Copied ${sessionId} (${countOf(entries, "entry", "entries")})`]),
          });
          for (const warning of result.warnings) deps.stderr.write(`warning: ${warning}\n`);
          writeLines(deps.stdout, [
            `${countOf(result.copied.length, "session")}, ${countOf(result.entries, "entry", "entries")} copied from ${options.from} to ${options.to}.`,
          ]);
        });
      }),
    );
}
