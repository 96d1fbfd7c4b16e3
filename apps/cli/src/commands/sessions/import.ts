/**
 * `arbor sessions import <file> [--cwd DIR] [--dry-run]`: copies a pi agent session file (version 1, 2 or
 * 3) into the store, under its working directory, as version 3. The session keeps its id unless the store
 * already holds that id; then it gets a new one, and the report says so. The file itself is never changed.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ImportedFile, jsonlPathOf, readSessionFileForImport } from "@arbor/app-runtime";
import {
  generateSessionId,
  MemorySessionStore,
  Session,
  SessionExistsError,
  type SessionHeader,
  type SessionStore,
} from "@arbor/session-store";
import { countOf, formatCount } from "@arbor/session-view";
import type { Command } from "commander";
import { runAction, type SessionsCommandDeps, withStore, writeLines } from "./context.js";
import { treeStats } from "./show.js";

/** What an import did. */
export interface ImportReport {
  sessionId: string;
  /** The id in the file, when the session got a new one because the store held it. */
  renamedFrom: string | undefined;
  fromVersion: number;
  entries: number;
  messages: number;
  branches: number;
  leafId: string | null;
  location: string | undefined;
  warnings: string[];
}

/**
 * Creates the session (a new id when the file's is taken) and appends every entry in one atomic batch;
 * removes the half-made session when the append fails.
 */
async function storeImported(
  target: SessionStore,
  file: ImportedFile,
): Promise<{ header: SessionHeader; renamedFrom?: string }> {
  let header = file.header;
  let renamedFrom: string | undefined;
  try {
    await target.createSession(header);
  } catch (error) {
    if (!(error instanceof SessionExistsError)) throw error;
    renamedFrom = header.id;
    header = { ...header, id: generateSessionId() };
    await target.createSession(header);
  }
  try {
    if (file.entries.length > 0)
      await target.appendEntries(header.id, file.entries, { expectedLastEntryId: null });
  } catch (error) {
    await target.deleteSession(header.id).catch(() => undefined);
    throw error;
  }
  return { header, renamedFrom };
}

function reportLines(source: string, report: ImportReport, dryRun: boolean): string[] {
  const version =
    report.fromVersion === 3 ? "format version 3" : `format version ${report.fromVersion}, migrated to 3`;
  const lines = [
    dryRun
      ? `Checked ${source} (${version}); nothing was written (--dry-run).`
      : `Imported ${source} (${version}) as session ${report.sessionId}.`,
  ];
  if (report.renamedFrom !== undefined) {
    lines.push(
      `  The store already holds a session with the file's id ${report.renamedFrom}; ` +
        (dryRun ? "an import would give this copy a new id." : "this copy got a new id."),
    );
  }
  lines.push(
    `  ${countOf(report.entries, "entry", "entries")}, ${countOf(report.messages, "message")}, ${formatCount(report.branches)} ` +
      `branch${report.branches === 1 ? "" : "es"}, leaf ${report.leafId ?? "(none)"}`,
  );
  if (report.location !== undefined) lines.push(`  stored in ${report.location}`);
  if (report.warnings.length === 0) lines.push("  no warnings");
  else {
    lines.push(`  ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}:`);
    for (const warning of report.warnings) lines.push(`    - ${warning}`);
  }
  if (!dryRun) lines.push(`Show it: arbor sessions show ${report.sessionId}`);
  return lines;
}

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
            // A dry run imports into memory, so it reports exactly what a real import would hold.
            const destination = dryRun ? new MemorySessionStore() : target;
            const stored = await storeImported(destination, imported);
            let renamedFrom = stored.renamedFrom;
            if (dryRun && jsonlPathOf(target, imported.header.id) !== undefined)
              renamedFrom = imported.header.id;
            const session = await Session.open(destination, stored.header.id);
            const stats = treeStats(session.getTree());
            const report: ImportReport = {
              sessionId: dryRun ? imported.header.id : session.id,
              renamedFrom,
              fromVersion: imported.fromVersion,
              entries: session.entryCount,
              messages: stats.messages,
              branches: stats.leaves,
              leafId: session.leafId,
              location: dryRun ? undefined : jsonlPathOf(target, session.id),
              warnings: imported.warnings,
            };
            writeLines(deps.stdout, reportLines(path, report, dryRun));
          });
        },
      ),
    );
}
