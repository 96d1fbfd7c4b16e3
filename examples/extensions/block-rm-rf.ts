/**
 * An Arbor extension: a `tool_call` guard that blocks `bash` commands deleting recursively and by force
 * (`rm -rf`, `rm -fr`, `rm -r -f`, `rm --recursive --force`). The model receives the reason as the tool's
 * error result and can try something narrower. Install it by copying it to `~/.arbor/extensions/` or
 * `.arbor/extensions/`, or load it for one run: `arbor --extension examples/extensions/block-rm-rf.ts`.
 */
import type { ExtensionApi } from "@arbor/app-runtime";

/** True when a shell command runs `rm` with both a recursive and a force flag. */
export function deletesRecursivelyByForce(command: string): boolean {
  for (const match of command.matchAll(/(?:^|[\s;&|(])rm((?:\s+-[A-Za-z-]+)+)/g)) {
    const flags = match[1]!.trim().split(/\s+/);
    const recursive = flags.some((flag) => flag === "--recursive" || /^-[A-Za-z]*[rR]/.test(flag));
    const force = flags.some((flag) => flag === "--force" || /^-[A-Za-z]*f/.test(flag));
    if (recursive && force) return true;
  }
  return false;
}

export default function blockRmRf(arbor: ExtensionApi): void {
  arbor.on("tool_call", (event) => {
    if (event.toolCall.name !== "bash") return undefined;
    const command = String(event.args.command ?? "");
    if (!deletesRecursivelyByForce(command)) return undefined;
    arbor.ui.notify(`block-rm-rf: blocked ${JSON.stringify(command)}`, "warning");
    return {
      block: true,
      reason: `Refused by block-rm-rf: "${command}" deletes recursively by force. Delete the specific files instead.`,
    };
  });
}
