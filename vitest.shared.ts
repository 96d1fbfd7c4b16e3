import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * Settings every package's vitest project shares: sibling workspace packages are loaded from their
 * `src/` through the `"@arbor/source"` export condition, so tests never need a build first.
 */
export default defineConfig({
  resolve: { conditions: ["@arbor/source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["@arbor/source", ...defaultServerConditions] } },
  test: {
    environment: "node",
    // Live tests against real APIs (`*.int.test.ts`) run only with `pnpm test:int`, and skip without keys.
    // Projects must not set `include` themselves: mergeConfig concatenates the lists, so a project's own
    // list would bring every test back into `pnpm test:int`.
    include: process.env.ARBOR_TEST_INT
      ? ["test/**/*.int.test.ts", "test/**/*.int.test.tsx"]
      : ["test/**/*.test.ts", "test/**/*.test.tsx"],
    exclude: process.env.ARBOR_TEST_INT ? [] : ["**/*.int.test.ts", "**/node_modules/**"],
    testTimeout: 20_000,
    // eventsource-parser (imported by the MCP SDK's HTTP transports) exports TypeScript under "source": vite
    // compiles it and the two SDK files that import it.
    server: {
      deps: {
        inline: [
          /@modelcontextprotocol\/sdk\/dist\/esm\/client\/(streamableHttp|sse)\.js/,
          /eventsource-parser/,
        ],
      },
    },
  },
});
