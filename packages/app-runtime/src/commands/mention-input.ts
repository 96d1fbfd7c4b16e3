/**
 * `@path` in every mode: a harness resource loader that attaches the files a prompt mentions, so that the
 * interactive editor, print and json mode, rpc's `prompt` and the demo's prompt all send the same message —
 * each mentioned text file as a `<file path="…">` block after the text, each image as an image block. An
 * `@word` that names no file (an e-mail handle, a decorator) stays as typed.
 */
import {
  type ExpandedInput,
  emptyHarnessResources,
  type HarnessResourceLoader,
  type HarnessResources,
} from "@arbor/harness";
import { createFileMentions, type FileMentionOptions } from "./file-mentions.js";

/** A note for the user about a prompt's mentions: the files attached (`info`), a mention of no file (`warning`). */
export interface MentionNotice {
  level: "info" | "warning";
  message: string;
}

/** A mention: `@` at the start or after whitespace, then something. */
const HAS_MENTION = /(^|\s)@\S/;

/**
 * `loader` (or no resources) whose `expandInput` also attaches the files the user's text mentions, read in
 * `cwd` with the coding tools' `read` (its limits). The mentions are those of the text as typed (not of a
 * skill's or template's body); their files follow the expanded text.
 *
 * `options.refuse` keeps a file out (a permission rule denies reading it): the mention stays text, with a warning.
 *
 * Contract: `expandInput` never rejects; `notice` (called during `expandInput`) must not throw.
 */
export function withFileMentions(
  loader: HarnessResourceLoader | undefined,
  cwd: string,
  notice: (notice: MentionNotice) => void = () => undefined,
  options: FileMentionOptions = {},
): HarnessResourceLoader {
  const mentions = createFileMentions(cwd, options);
  return {
    load: (directory) => loader?.load(directory) ?? Promise.resolve(emptyHarnessResources()),
    async expandInput(text: string, resources: HarnessResources): Promise<ExpandedInput> {
      const expanded: ExpandedInput =
        loader === undefined ? { text, kind: "plain" } : await loader.expandInput(text, resources);
      if (!HAS_MENTION.test(text)) return expanded;
      const attached = await mentions.attach(text);
      // A word that looks like a path (`@notes.txt`, `@src/x`) is worth a warning; `@Component` is not.
      for (const { path, reason } of attached.missing)
        if (/[./]/.test(path)) notice({ level: "warning", message: `@${path}: ${reason}` });
      if (attached.attached.length === 0) return expanded;
      notice({
        level: "info",
        message: `attached ${attached.attached.map((path) => `@${path}`).join(", ")}`,
      });
      return {
        ...expanded,
        // The `<file>` blocks `attach` appended to the text as typed follow the expanded text.
        text: `${expanded.text}${attached.text.slice(text.length)}`,
        images: [...(expanded.images ?? []), ...attached.images],
      };
    },
  };
}
