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
      testTimeout: 600_000,
      hookTimeout: 60_000,
    },
  }),
);
