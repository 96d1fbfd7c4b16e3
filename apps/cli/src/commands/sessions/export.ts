/**
 * `arbor sessions export <id|path> --format html|md|jsonl [-o FILE]`: a session as a self-contained HTML
 * page (the whole tree), as Markdown (the current branch, or `--leaf`), or as a plain version-3 JSONL file
 * (every entry; the JSONL store's batch framing dropped). Without `-o` the result goes to stdout.
 */
import { writeFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import { ArborUserError, resolveEntryReference } from "@arbor/app-runtime";
import { storeNotice, summarizeSessionNotices } from "@arbor/session-store";
import { countOf, exportHtml, exportJsonl, exportMarkdown } from "@arbor/session-view";
import { type Command, Option } from "commander";
import { runAction, type SessionsCommandDeps, withSession, writeLines } from "./context.js";

/** The export formats. */
export const EXPORT_FORMATS = ["html", "md", "jsonl"] as const;

/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const FORMAT_OF_EXTENSION: Record<string, ExportFormat> = {
  ".html": "html",
  ".htm": "html",
  ".md": "md",
  ".markdown": "md",
  ".jsonl": "jsonl",
};

/** The format asked for, else the one `-o`'s extension names; throws `ArborUserError` when neither says. */
export function exportFormatOf(format: string | undefined, output: string | undefined): ExportFormat {
  if (format !== undefined) return format as ExportFormat;
  const fromExtension = output === undefined ? undefined : FORMAT_OF_EXTENSION[extname(output).toLowerCase()];
  if (fromExtension !== undefined) return fromExtension;
  throw new ArborUserError(
    "command_failed",
    "Choose a format: --format html, md or jsonl (or an -o file ending in .html, .md or .jsonl).",
  );
}

interface ExportOptions {
  format?: string;
  output?: string;
  leaf?: string;
}

/** Adds `export` to the `sessions` command. */
export function addExportCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("export")
    .description("export a session as a self-contained HTML page, Markdown, or plain JSONL")
    .argument("<session>", "a session id (or a unique prefix) or a path to a .jsonl session file")
    .addOption(
      new Option(
        "-f, --format <format>",
        "html: the whole tree; md: the current branch; jsonl: every entry",
      ).choices(EXPORT_FORMATS),
    )
    .option("-o, --output <file>", "write to this file instead of stdout")
    .option("--leaf <entry>", "md: export the branch ending at this entry instead of the current one")
    .action(
      runAction(deps, "export", async (reference: string, options: ExportOptions, command: Command) => {
        const format = exportFormatOf(options.format, options.output);
        if (options.leaf !== undefined && format !== "md") {
          throw new ArborUserError(
            "command_failed",
            `--leaf applies to --format md only (${format} exports the whole session).`,
          );
        }
        await withSession(deps, command, reference, { readOnly: true }, async (session, resolved) => {
          let text: string;
          // One line per kind of warning (the store's plain ones grouped by what they say).
          let warnings: readonly string[] | undefined;
          let described: string;
          if (format === "jsonl") {
            const result = await exportJsonl(resolved.store, session.id);
            text = result.text;
            warnings = summarizeSessionNotices(result.warnings.map(storeNotice));
            described = `${countOf(result.entryCount, "entry", "entries")}`;
          } else if (format === "md") {
            const leafId =
              options.leaf === undefined ? session.leafId : resolveEntryReference(session, options.leaf);
            text = exportMarkdown(session, { leafId });
            described = `the branch to ${leafId ?? "(none)"}`;
          } else {
            text = exportHtml(session, { location: resolved.location });
            described = `${countOf(session.entryCount, "entry", "entries")}`;
          }
          for (const warning of warnings ?? session.warnings) deps.stderr.write(`warning: ${warning}\n`);
          if (options.output === undefined) {
            deps.stdout.write(text);
            return;
          }
          const path = resolve(deps.cwd, options.output);
          // Sessions can hold secrets; the export is private like the session file (0600).
          writeFileSync(path, text, { mode: 0o600 });
          writeLines(deps.stdout, [`Exported session ${session.id} (${described}) as ${format} to ${path}`]);
        });
      }),
    );
}
