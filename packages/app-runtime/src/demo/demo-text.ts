/**
 * Texts of the offline scripted model: its help, its greeting, and readable filler of any length (for
 * trying long answers and measuring the JSON stream).
 */

/** What the scripted model understands (its answer to `help`). */
export const DEMO_HELP = `I am Arbor's offline scripted model: no network, no key, the same answer every time. I understand:

- \`run <command>\` (or \`$ <command>\`): run it with the bash tool
- \`read <path> [from[-to]]\`, \`ls [path]\`, \`find <glob> [path]\`, \`grep <pattern> [path]\`
- \`write <path>: <content>\` (or the content on the next lines): write a file
- \`edit <path>: <old text> => <new text>\`: replace text in a file
- \`think <question>\`: think first (a thinking block), then answer
- \`words <n>\`: an answer of n words
- \`wait <ms> [text]\`: wait (abortable), then answer
- \`fail [message]\`: a failed response (the run ends in error)
- anything else: I repeat it back.

After a tool runs I report its result. Asked for a summary (compaction, branch summaries), I write one from the conversation's own lines.`;

const SENTENCES = [
  "Arbor keeps every conversation as a tree of entries, so any earlier point can be resumed, forked or labelled.",
  "Each message, tool call, compaction and branch summary is appended to the session file and never rewritten.",
  "When the context window fills up, compaction summarizes older history and keeps the recent turns verbatim.",
  "The summary records which entries it covers, so the originals can be recalled from the log at any time.",
  "Going back to an earlier entry summarizes the branch being left, and the new branch starts from there.",
  "Providers stream text, thinking and tool calls through one event protocol, whatever the vendor.",
  "Tools run in parallel unless they ask not to, and every call gets exactly one result.",
  "Nothing here needs a network: this text comes from the offline scripted model.",
];

/**
 * Readable filler of exactly `count` words, in paragraphs of about 80 words.
 *
 * Contract: deterministic; O(count).
 */
export function demoWords(count: number): string {
  const words: string[] = [];
  let sentence = 0;
  while (words.length < count) {
    for (const word of SENTENCES[sentence % SENTENCES.length]!.split(" ")) {
      if (words.length === count) break;
      words.push(word);
    }
    sentence++;
  }
  const paragraphs: string[] = [];
  for (let index = 0; index < words.length; index += 80)
    paragraphs.push(words.slice(index, index + 80).join(" "));
  return paragraphs.join("\n\n");
}

/** The first `maxLines` lines of a text, with a note of how many more there are. */
export function firstLines(text: string, maxLines: number): string {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (lines.length <= maxLines) return lines.join("\n");
  return `${lines.slice(0, maxLines).join("\n")}\n… (${lines.length - maxLines} more lines)`;
}

/** A text cut to `max` characters on one line. */
export function clipLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
