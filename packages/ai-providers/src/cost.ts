import type { Model, Usage } from "./types.js";

/** A usage with every counter at zero. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * Fills `usage.cost` from the model's prices (US dollars per million tokens) and returns it.
 * `totalTokens` is recomputed when it is zero.
 *
 * Contract: mutates and returns the given usage; never throws (missing prices count as zero).
 */
export function calculateCost(model: Pick<Model, "cost">, usage: Usage): Usage {
  const price = model.cost;
  const dollars = (tokens: number, rate: number | undefined) => (tokens * (rate ?? 0)) / 1_000_000;
  usage.cost.input = dollars(usage.input, price?.input);
  usage.cost.output = dollars(usage.output, price?.output);
  usage.cost.cacheRead = dollars(usage.cacheRead, price?.cacheRead);
  usage.cost.cacheWrite = dollars(usage.cacheWrite, price?.cacheWrite);
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  if (usage.totalTokens === 0) {
    usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  }
  return usage;
}

/** Adds `b` into `a` (counters and costs) and returns `a`. */
export function addUsage(a: Usage, b: Usage): Usage {
  a.input += b.input;
  a.output += b.output;
  a.cacheRead += b.cacheRead;
  a.cacheWrite += b.cacheWrite;
  a.totalTokens += b.totalTokens;
  a.cost.input += b.cost.input;
  a.cost.output += b.cost.output;
  a.cost.cacheRead += b.cost.cacheRead;
  a.cost.cacheWrite += b.cost.cacheWrite;
  a.cost.total += b.cost.total;
  return a;
}
