import { performance } from "node:perf_hooks";

/** Timing of one benchmarked function. */
export interface Measurement {
  /** Median wall time of one run, in milliseconds. */
  medianMs: number;
  /** Fastest run, in milliseconds. */
  minMs: number;
  runs: number;
}

/**
 * Runs `fn` `warmup` times untimed, then `runs` times timed, and returns the median and minimum.
 * The result of each run is kept in a sink so the work cannot be optimized away. When node runs with
 * `--expose-gc` (as `pnpm bench` does), garbage is collected before each timed run so one run's
 * garbage does not bill the next.
 */
export function measure(fn: () => unknown, options: { runs?: number; warmup?: number } = {}): Measurement {
  const runs = options.runs ?? 15;
  const warmup = options.warmup ?? 3;
  let sink: unknown;
  for (let i = 0; i < warmup; i++) sink = fn();
  const times: number[] = [];
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < runs; i++) {
    collectGarbage?.();
    const start = performance.now();
    sink = fn();
    times.push(performance.now() - start);
  }
  keep(sink);
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]!, runs };
}

/** Formats milliseconds for a report table. */
export function ms(value: number): string {
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`;
}

let kept: unknown;
/** Stores a value where the optimizer cannot prove it unused. */
function keep(value: unknown): void {
  kept = value;
  if (kept === measure) console.log("");
}
