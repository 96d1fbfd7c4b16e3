import { defineProject, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

export default mergeConfig(
  shared,
  defineProject({ test: { name: "demo", include: ["test/**/*.test.ts"], testTimeout: 60_000 } }),
);
