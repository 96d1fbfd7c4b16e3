import { defineProject, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

/**
 * The reliability suite (docs/reliability.md): Arbor attacked from outside — killed processes, racing
 * writers, damaged files, misbehaving servers, leaked secrets. `RELIABILITY_SCALE=bench` (what
 * `pnpm bench:reliability` sets) runs the same trials at a larger N.
 */
export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "reliability",
      include: ["*.test.ts"],
      // A category's trials are one test: minutes at the CI size, up to an hour at the bench's.
      testTimeout: process.env.RELIABILITY_SCALE === "bench" ? 3_600_000 : 600_000,
      hookTimeout: 60_000,
    },
  }),
);
