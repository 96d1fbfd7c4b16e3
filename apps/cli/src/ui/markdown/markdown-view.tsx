// @jsxRuntime automatic
// @jsxImportSource react
/**
 * Markdown tokens (from marked's lexer) as ink components: headings, paragraphs with bold, italic,
 * strike-through, inline code and links (as text, with the address after it), fenced code blocks with a
 * gutter, ordered, bullet and task lists (nested), block quotes, rules and simple tables. HTML is shown as
 * text; nothing is interpreted beyond what a terminal can show.
 */
import { Box, Text } from "ink";
import type { Token, Tokens } from "marked";
import { memo, type ReactNode } from "react";
import { type Theme, useTheme } from "../theme.js";

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Decodes the HTML entities marked leaves in text (`&amp;`, `&#39;`, `&#x2014;`). */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (match, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return codePoint(Number.parseInt(name.slice(2), 16), match);
    if (name.startsWith("#")) return codePoint(Number.parseInt(name.slice(1), 10), match);
    return ENTITIES[name.toLowerCase()] ?? match;
  });
}

function codePoint(value: number, fallback: string): string {
  return Number.isFinite(value) && value > 0 && value <= 0x10ffff ? String.fromCodePoint(value) : fallback;
}

/** The text of inline tokens without styling (for table cells). */
export function plainText(tokens: readonly Token[] | undefined): string {
  if (tokens === undefined) return "";
  let text = "";
  for (const token of tokens) {
    const children = (token as { tokens?: Token[] }).tokens;
    if (children !== undefined && token.type !== "codespan") text += plainText(children);
    else if (token.type === "br") text += " ";
    else text += decodeEntities(String((token as { text?: unknown }).text ?? token.raw));
  }
  return text;
}

function inline(tokens: readonly Token[] | undefined, theme: Theme, keyPrefix = ""): ReactNode[] {
  if (tokens === undefined) return [];
  return tokens.map((token, index) => inlineToken(token, theme, `${keyPrefix}${index}`));
}

function inlineToken(token: Token, theme: Theme, key: string): ReactNode {
  switch (token.type) {
    case "text": {
      const text = token as Tokens.Text;
      if (text.tokens !== undefined && text.tokens.length > 0) {
        return <Text key={key}>{inline(text.tokens, theme, `${key}.`)}</Text>;
      }
      return decodeEntities(text.text);
    }
    case "strong":
      return (
        <Text key={key} bold>
          {inline((token as Tokens.Strong).tokens, theme, `${key}.`)}
        </Text>
      );
    case "em":
      return (
        <Text key={key} italic>
          {inline((token as Tokens.Em).tokens, theme, `${key}.`)}
        </Text>
      );
    case "del":
      return (
        <Text key={key} strikethrough>
          {inline((token as Tokens.Del).tokens, theme, `${key}.`)}
        </Text>
      );
    case "codespan": {
      const code = decodeEntities((token as Tokens.Codespan).text);
      return (
        <Text key={key} color={theme.colorOf("code")}>
          {theme.color ? code : `\`${code}\``}
        </Text>
      );
    }
    case "link": {
      const link = token as Tokens.Link;
      const label = plainText(link.tokens);
      const showAddress = link.href !== "" && link.href !== label && `mailto:${label}` !== link.href;
      return (
        <Text key={key}>
          <Text color={theme.colorOf("link")} underline={theme.color}>
            {inline(link.tokens, theme, `${key}.`)}
          </Text>
          {showAddress ? <Text color={theme.colorOf("muted")}>{` (${link.href})`}</Text> : null}
        </Text>
      );
    }
    case "image": {
      const image = token as Tokens.Image;
      return <Text key={key} color={theme.colorOf("muted")}>{`[image: ${image.text || image.href}]`}</Text>;
    }
    case "br":
      return "\n";
    case "checkbox":
      return (token as Tokens.Checkbox).checked ? "[x] " : "[ ] ";
    case "escape":
    case "html":
      return decodeEntities(String((token as { text?: unknown }).text ?? token.raw));
    default: {
      const children = (token as { tokens?: Token[] }).tokens;
      if (children !== undefined) return <Text key={key}>{inline(children, theme, `${key}.`)}</Text>;
      return decodeEntities(String((token as { text?: unknown }).text ?? token.raw));
    }
  }
}

function CodeBlock(props: { token: Tokens.Code }): ReactNode {
  const theme = useTheme();
  const lines = props.token.text.split("\n");
  return (
    <Box flexDirection="column">
      {props.token.lang ? <Text color={theme.colorOf("muted")}>{`╭ ${props.token.lang}`}</Text> : null}
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of a code block have no identity but their place
        <Text key={index} wrap="wrap">
          <Text color={theme.colorOf("muted")}>│ </Text>
          <Text color={theme.colorOf("code")}>{line}</Text>
        </Text>
      ))}
    </Box>
  );
}

function ListBlock(props: { token: Tokens.List }): ReactNode {
  const { token } = props;
  const start = typeof token.start === "number" ? token.start : 1;
  const markers = token.items.map((_, index) => (token.ordered ? `${start + index}.` : "•"));
  const width = Math.max(...markers.map((marker) => marker.length)) + 1;
  return (
    <Box flexDirection="column">
      {token.items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list items are identified by their position
        <Box key={index} flexDirection="row">
          <Box width={width} flexShrink={0}>
            <Text>{markers[index]}</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            {item.task && !item.tokens.some((child) => hasCheckbox(child)) ? (
              <Text>{item.checked ? "[x]" : "[ ]"}</Text>
            ) : null}
            {item.tokens.map((child, childIndex) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: blocks of an item are identified by their position
              <MarkdownBlock key={childIndex} token={child} />
            ))}
          </Box>
        </Box>
      ))}
    </Box>
  );
}

function hasCheckbox(token: Token): boolean {
  const children = (token as { tokens?: Token[] }).tokens;
  return children?.some((child) => child.type === "checkbox") ?? false;
}

function TableBlock(props: { token: Tokens.Table }): ReactNode {
  const { token } = props;
  const header = token.header.map((cell) => plainText(cell.tokens));
  const rows = token.rows.map((row) => row.map((cell) => plainText(cell.tokens)));
  const widths = header.map((cell, column) =>
    Math.min(40, Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => pad(cell, widths[column] ?? cell.length, token.align[column] ?? null))
      .join(" │ ");
  return (
    <Box flexDirection="column">
      <Text bold>{line(header)}</Text>
      <Text>{widths.map((width) => "─".repeat(width)).join("─┼─")}</Text>
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: table rows are identified by their position
        <Text key={index}>{line(row)}</Text>
      ))}
    </Box>
  );
}

function pad(text: string, width: number, align: "center" | "left" | "right" | null): string {
  const cut = text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
  const room = width - cut.length;
  if (align === "right") return " ".repeat(room) + cut;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + cut + " ".repeat(Math.ceil(room / 2));
  return cut + " ".repeat(room);
}

/**
 * One block-level token.
 *
 * Contract: renders any token (unknown ones as their raw text); memoized on the token object, so a block
 * that does not change is not rendered again.
 */
export const MarkdownBlock = memo(function MarkdownBlock(props: { token: Token }): ReactNode {
  const theme = useTheme();
  const { token } = props;
  switch (token.type) {
    case "space":
    case "def":
      return null;
    case "heading": {
      const heading = token as Tokens.Heading;
      return (
        <Text bold color={theme.colorOf("heading")} underline={heading.depth === 1}>
          {inline(heading.tokens, theme)}
        </Text>
      );
    }
    case "paragraph":
      return <Text>{inline((token as Tokens.Paragraph).tokens, theme)}</Text>;
    case "text": {
      const text = token as Tokens.Text;
      return (
        <Text>{text.tokens !== undefined ? inline(text.tokens, theme) : decodeEntities(text.text)}</Text>
      );
    }
    case "code":
      return <CodeBlock token={token as Tokens.Code} />;
    case "list":
      return <ListBlock token={token as Tokens.List} />;
    case "blockquote":
      return (
        <Box flexDirection="row">
          <Box width={2} flexShrink={0}>
            <Text color={theme.colorOf("muted")}>▌</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            <MarkdownBlocks tokens={(token as Tokens.Blockquote).tokens} />
          </Box>
        </Box>
      );
    case "hr":
      return <Text color={theme.colorOf("muted")}>{"─".repeat(40)}</Text>;
    case "table":
      return <TableBlock token={token as Tokens.Table} />;
    case "html":
      return <Text color={theme.colorOf("muted")}>{token.raw.replace(/\n+$/, "")}</Text>;
    default:
      return <Text>{decodeEntities(String((token as { text?: unknown }).text ?? token.raw))}</Text>;
  }
});

/** Block tokens that show something (blank-line tokens only separate blocks). */
function visible(tokens: readonly Token[]): Token[] {
  return tokens.filter((token) => token.type !== "space" && token.type !== "def");
}

/**
 * Blocks one under the other, separated by a blank line.
 *
 * Contract: renders each block with {@link MarkdownBlock}; `first` false adds a blank line before the first
 * block too (for a list continued by another component).
 */
export function MarkdownBlocks(props: { tokens: readonly Token[]; first?: boolean }): ReactNode {
  const blocks = visible(props.tokens);
  const first = props.first ?? true;
  return (
    <Box flexDirection="column">
      {blocks.map((token, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: blocks are identified by their position in the text
        <Box key={index} marginTop={index === 0 && first ? 0 : 1} flexDirection="column">
          <MarkdownBlock token={token} />
        </Box>
      ))}
    </Box>
  );
}
