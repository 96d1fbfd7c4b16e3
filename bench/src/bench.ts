/**
 * One benchmark: `src/<name>.bench.ts` default-exports it, and `pnpm bench` finds it. `run` measures
 * a baseline in the same run and returns report lines (times and their ratios to the baseline).
 */
export interface Bench {
  name: string;
  run: () => string[] | Promise<string[]>;
}
