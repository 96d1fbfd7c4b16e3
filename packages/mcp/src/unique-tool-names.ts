/**
 * Names for a set of MCP tools that are unique among themselves and against the other tools offered (the
 * built-in ones): `x.y` and `x_y` both clean to `mcp__s__x_y`, so one of them must be told apart. The rule
 * depends on the set, never on its order, so a server listing the same tools gives the same names on every
 * run.
 */
import { hashedMcpToolName, isExactMcpToolName, plainMcpToolName } from "./tool-names.js";

/** One tool to name: the server's name and the tool's name as the server lists it. */
export interface McpToolIdentity {
  server: string;
  tool: string;
}

/** A guard against an endless loop; each round moves at least one name, and hashes rarely collide. */
const MAX_ROUNDS = 1000;

/**
 * The AgentTool names of `tools`, in their order.
 *
 * The rule, applied until no name is shared: each tool starts with its plain name (`mcp__<server>__<tool>`,
 * other characters made `_`) when that is valid, else its shortened one (a head and a hash). When several
 * tools (or a reserved name) want one name, the tool whose name it is exactly — nothing cleaned — keeps it;
 * every other one moves to its shortened name, or to the next hash when it had one already.
 *
 * Contract: pure and deterministic; every name is valid for the model APIs (`^[A-Za-z0-9_-]{1,64}$`), none is
 * in `reserved`, no two are equal; a tool's name depends only on the set of tools and `reserved`, not their
 * order (unless one identity is given twice: the later copies are told apart by their position).
 */
export function assignMcpToolNames(
  tools: readonly McpToolIdentity[],
  reserved: Iterable<string> = [],
): string[] {
  const taken = new Set(reserved);
  // 0: the plain name; n > 0: the shortened name of attempt n - 1.
  const attempts = tools.map(({ server, tool }) => (plainMcpToolName(server, tool) === undefined ? 1 : 0));
  const nameOf = (index: number): string => {
    const { server, tool } = tools[index]!;
    const attempt = attempts[index]!;
    return attempt === 0 ? plainMcpToolName(server, tool)! : hashedMcpToolName(server, tool, attempt - 1);
  };
  const names = tools.map((_tool, index) => nameOf(index));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const holders = new Map<string, number[]>();
    for (const [index, name] of names.entries()) {
      const list = holders.get(name);
      if (list === undefined) holders.set(name, [index]);
      else list.push(index);
    }
    let moved = false;
    for (const [name, indexes] of holders) {
      if (indexes.length === 1 && !taken.has(name)) continue;
      const keeper = taken.has(name) ? undefined : keeperOf(name, indexes, tools, attempts);
      for (const index of indexes) {
        if (index === keeper) continue;
        attempts[index]! += 1;
        names[index] = nameOf(index);
        moved = true;
      }
    }
    if (!moved) return names;
  }
  return names;
}

/**
 * Who keeps a shared name: the tool whose exact name it is; else the first that has a shortened name already
 * (two hashes that collide, or one identity twice); else nobody (lossy plain names all move).
 */
function keeperOf(
  name: string,
  indexes: readonly number[],
  tools: readonly McpToolIdentity[],
  attempts: readonly number[],
): number | undefined {
  const exact = indexes.find((index) => {
    const { server, tool } = tools[index]!;
    return attempts[index] === 0 && isExactMcpToolName(name, server, tool);
  });
  if (exact !== undefined) return exact;
  return indexes.find((index) => attempts[index]! > 0);
}
