// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The live part under the transcript: the reply being streamed (Markdown rendered as it grows), the tools
 * running with their latest output line, a spinner while waiting for the model or the tools, and the
 * messages queued for the agent. Only this part re-renders while a reply streams.
 */

import {
  clipText,
  type LiveBlock,
  type SessionViewModel,
  singleLine,
  toolCallLine,
} from "@arbor/session-view";
import { Box, Text } from "ink";
import Spinner from "ink-spinner";
import type { Token } from "marked";
import { memo, type ReactNode, useRef } from "react";
import { IncrementalMarkdown } from "../markdown/incremental-markdown.js";
import { MarkdownBlocks } from "../markdown/markdown-view.js";
import { useTheme } from "../theme.js";
import { useLive } from "../use-session-view.js";
import { ThinkingLine } from "./transcript.js";

/** The frozen blocks of a streaming text: re-rendered only when another block is frozen. */
const FrozenBlocks = memo(function FrozenBlocks(props: {
  tokens: readonly Token[];
  count: number;
}): ReactNode {
  return <MarkdownBlocks tokens={props.tokens.slice(0, props.count)} />;
});

/**
 * A Markdown text that grows: complete blocks are lexed and rendered once, the last block at every update.
 *
 * Contract: one instance per growing text (give it a new `key` for another text).
 */
export function StreamingMarkdown(props: { text: string }): ReactNode {
  const lexer = useRef<IncrementalMarkdown | undefined>(undefined);
  lexer.current ??= new IncrementalMarkdown();
  const blocks = lexer.current.update(props.text);
  return (
    <Box flexDirection="column">
      <FrozenBlocks tokens={blocks.frozen} count={blocks.frozenCount} />
      <MarkdownBlocks tokens={blocks.tail} first={blocks.frozenCount === 0} />
    </Box>
  );
}

function StreamingReply(props: { blocks: readonly LiveBlock[] }): ReactNode {
  const theme = useTheme();
  return (
    <Box flexDirection="column" marginTop={1}>
      {props.blocks.map((block, index) => {
        if (block.kind === "text") {
          // biome-ignore lint/suspicious/noArrayIndexKey: a reply's blocks only grow at the end
          return <StreamingMarkdown key={index} text={block.text} />;
        }
        if (block.kind === "thinking") {
          // biome-ignore lint/suspicious/noArrayIndexKey: a reply's blocks only grow at the end
          return <ThinkingLine key={index} text={block.text} redacted={false} live />;
        }
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a reply's blocks only grow at the end
          <Text key={index} color={theme.colorOf("muted")}>
            {`→ ${toolCallLine(block.name, block.args, { max: 120 })}`}
          </Text>
        );
      })}
    </Box>
  );
}

/**
 * The live part of the UI, from the store's live slice.
 *
 * Contract: renders nothing but the hint line when idle. With `escapeInterrupts: false` (a picker or a
 * question is open, and Esc answers it), the activity line does not offer Esc.
 */
export function LiveView(props: { store: SessionViewModel; escapeInterrupts?: boolean }): ReactNode {
  const { store } = props;
  const theme = useTheme();
  const live = useLive(store);
  return (
    <Box flexDirection="column">
      {live.streaming === undefined || live.streaming.length === 0 ? null : (
        <StreamingReply key={live.streamingKey} blocks={live.streaming} />
      )}
      {live.tools.map((tool) => (
        <Box key={tool.id} flexDirection="column">
          <Text>
            <Text color={theme.colorOf("warning")}>{"… "}</Text>
            <Text bold>{tool.name}</Text>
            {tool.argumentLine === "" ? null : (
              <Text color={theme.colorOf("muted")}>{` ${tool.argumentLine}`}</Text>
            )}
          </Text>
          {tool.progress === undefined ? null : (
            <Text color={theme.colorOf("muted")}>{`  ⎿ ${tool.progress}`}</Text>
          )}
        </Box>
      ))}
      {live.activity === undefined ? null : (
        <Box marginTop={1}>
          <Text color={theme.colorOf("accent")}>
            <Spinner type="dots" />
          </Text>
          <Text>{` ${live.activity}`}</Text>
          {props.escapeInterrupts === false ? null : (
            <Text color={theme.colorOf("muted")}>{"  (Esc to interrupt)"}</Text>
          )}
        </Box>
      )}
      {live.steering.map((text, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: queued messages are shown in queue order
        <Text key={`steer-${index}`} color={theme.colorOf("muted")}>
          {`⏵ steer (queued): ${clipText(singleLine(text), 100)}`}
        </Text>
      ))}
      {live.followUp.map((text, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: queued messages are shown in queue order
        <Text key={`follow-${index}`} color={theme.colorOf("muted")}>
          {`⏵ follow-up (queued): ${clipText(singleLine(text), 100)}`}
        </Text>
      ))}
      {live.hint === undefined ? null : <Text color={theme.colorOf("warning")}>{live.hint}</Text>}
    </Box>
  );
}
