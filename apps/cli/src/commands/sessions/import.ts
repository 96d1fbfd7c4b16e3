/**
 * `arbor sessions import <file> [--cwd DIR] [--dry-run]`: copies a pi agent session file (version 1, 2 or
 * 3) into the store, under its working directory, as version 3. The session keeps its id unless the store
 * already holds that id; then it gets a new one, and the report says so. The file itself is never changed.
 * Reading, storing and the report are app-runtime's (`readSessionFileForImport`, `importSessionFile`).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { importReportLines, importSessionFile, readSessionFileForImport } from "@arbor/app-runtime";
import type { Command } from "commander";
import { runAction, type SessionsCommandDeps, withStore, writeLines } from "./context.js";

/** Adds `import` to the `sessions` command. */
export function addImportCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("import")
    .description("copy a pi agent session file (format version 1, 2 or 3) into the store")
    .argument("<file>", "the .jsonl session file")
    .option("--cwd <dir>", "file the session under this working directory instead of its header's")
    .option("--dry-run", "check and report without writing")
    .action(
      runAction(
        deps,
        "import",
        async (file: string, options: { cwd?: string; dryRun?: boolean }, command: Command) => {
          const path = resolve(deps.cwd, file);
          const text = readFileSync(path, "utf8");
          const cwd = options.cwd === undefined ? undefined : resolve(deps.cwd, options.cwd);
          const imported = readSessionFileForImport(text, path, { cwd });
          const dryRun = options.dryRun === true;
          await withStore(deps, command, { readOnly: dryRun }, async (target) => {
            const report = await importSessionFile(target, imported, { dryRun });
            writeLines(deps.stdout, importReportLines(path, report, dryRun));
          });
        },
      ),
    );
}
