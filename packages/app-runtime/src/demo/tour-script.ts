/**
 * What happens in `arbor tour`: the user's prompts and the scripted model's answers, one per model call. The
 * story — a tiny Node.js script written, run, edited; a long build log that fills the small context window
 * (compaction); an alternative tried on a branch that is then left (branch summary) — exercises every coding
 * tool the model calls here (write, bash, read, edit, grep) through the real harness.
 */
import type { ScriptedStep } from "@arbor/ai-providers/testing";
import { script } from "@arbor/ai-providers/testing";

/** One prompt of the tour and the answers to its model calls, in order. */
export interface TourPrompt {
  /** What the tour's user types. */
  text: string;
  /** The scripted model's answer to each call of the run. */
  answers: ScriptedStep[];
}

const GREET = `const name = process.argv[2] ?? "world";
console.log(\`Hello, \${name}!\`);
`;

const README = `# greet

Prints a greeting: \`node greet.mjs Ada\`.
`;

/** Lines of the build log (long enough to fill the tour model's window). */
export const BUILD_LOG_LINES = 300;

/** Lines of the build log per `read` call. */
export const PAGE_LINES = 100;

/** The line of the build log that holds the warning. */
export const WARNING_LINE = 217;

/** The greeting line before and after the friendlier edit, and the shouting version. */
const GREETING_V1 = `console.log(\`Hello, \${name}!\`);`;
const GREETING_V2 = `console.log(\`Hello, \${name}! Nice to meet you.\`);`;
const GREETING_V3 = [
  `const greeting = \`Hello, \${name}! Nice to meet you.\`;`,
  'console.log(process.argv.includes("--shout") ? greeting.toUpperCase() : greeting);',
].join("\n");
const SHELL_GREET = `echo "Hello, \${1:-world}! Nice to meet you."\n`;

const MAKE_LOG = [
  "node -e '",
  `for (let i = 1; i <= ${BUILD_LOG_LINES}; i++) console.log(`,
  `i === ${WARNING_LINE} ? "[build] step " + i + ": warning: the --old-flag option is deprecated; use --new-flag"`,
  ' : "[build] step " + i + ": compiled src/module_" + i + ".js (" + (i * 37 % 900 + 100) + " bytes) in " + (i % 7 + 3) + " ms, cache miss")',
  "' > build.log && wc -l build.log",
].join("");

/** The prompt before which the tour labels the session's leaf (the point it later returns to). */
export const LABEL_AFTER_PROMPT = 2;

/** The prompt after which the tour goes back to the label, summarizing the branch it leaves. */
export const NAVIGATE_AFTER_PROMPT = 4;

/** The prompts, in order (indexes 0–5). */
export const TOUR_PROMPTS: readonly TourPrompt[] = [
  {
    text: "Create a tiny Node.js script, greet.mjs, that greets the name given on the command line, and a README.",
    answers: [
      script.toolCalls(
        [
          { name: "write", arguments: { path: "greet.mjs", content: GREET } },
          { name: "write", arguments: { path: "README.md", content: README } },
        ],
        { text: "I'll write the script and a short README.\n" },
      ),
      script.text("Created **greet.mjs** and **README.md**. Try it with `node greet.mjs Ada`."),
    ],
  },
  {
    text: "Run it with your name.",
    answers: [
      script.toolCall("bash", { command: "node greet.mjs Arbor" }),
      script.text("It prints `Hello, Arbor!`: the script works."),
    ],
  },
  {
    text: "Make the greeting friendlier, and check that it still runs.",
    answers: [
      script.toolCall("read", { path: "greet.mjs" }, { text: "Let me look at the script first.\n" }),
      script.toolCall("edit", {
        path: "greet.mjs",
        edits: [{ oldText: GREETING_V1, newText: GREETING_V2 }],
      }),
      script.toolCall("bash", { command: "node greet.mjs Arbor" }),
      script.text("Now it says `Hello, Arbor! Nice to meet you.`"),
    ],
  },
  {
    text: `Generate a build log of ${BUILD_LOG_LINES} lines, then read it page by page and check it for warnings.`,
    answers: [
      script.toolCall("bash", { command: MAKE_LOG }, { text: "I'll generate the log first.\n" }),
      script.toolCall("read", { path: "build.log", limit: PAGE_LINES }),
      script.toolCall("read", { path: "build.log", offset: PAGE_LINES + 1, limit: PAGE_LINES }),
      script.toolCall("read", { path: "build.log", offset: 2 * PAGE_LINES + 1, limit: PAGE_LINES }),
      script.toolCall(
        "grep",
        { pattern: "warning", path: "build.log" },
        { text: "Now a search, to be sure.\n" },
      ),
      script.text(
        `The log has ${BUILD_LOG_LINES} lines and one warning, on line ${WARNING_LINE}: \`--old-flag\` is deprecated (use \`--new-flag\`).`,
      ),
    ],
  },
  {
    text: "Try an alternative: rewrite the greeting as a shell script.",
    answers: [
      script.toolCall("write", {
        path: "greet.sh",
        content: SHELL_GREET,
      }),
      script.toolCall("bash", { command: "sh greet.sh Arbor" }),
      script.text("`sh greet.sh Arbor` prints the same greeting, without Node."),
    ],
  },
  {
    text: "Let's keep Node after all. Add a --shout flag that prints the greeting in capitals.",
    answers: [
      script.toolCall("edit", {
        path: "greet.mjs",
        edits: [{ oldText: GREETING_V2, newText: GREETING_V3 }],
      }),
      script.toolCall("bash", { command: "node greet.mjs Arbor --shout" }),
      script.text("With `--shout` it prints `HELLO, ARBOR! NICE TO MEET YOU.`"),
    ],
  },
];
