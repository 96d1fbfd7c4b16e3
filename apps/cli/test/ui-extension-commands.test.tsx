import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionHost } from "@arbor/app-runtime/extensions";
import { describe, expect, test } from "vitest";
import { createTestRuntime, renderApp, temporaryDirectory } from "./ui-helpers.js";

const EXTENSION = `
export default function (arbor) {
  arbor.registerCommand("greet", {
    description: "greet someone",
    arguments: "<name>",
    async run(args, context) {
      await arbor.appendCustom("greeting", { name: args });
      context.notify("greeted " + args);
    },
  });
  arbor.registerCommand("crash", { description: "fails", run() { throw new Error("kaput"); } });
}
`;

describe("extension commands in the interactive mode", () => {
  test("/name runs the command, its notice is a transcript line, /help lists it, a failure is an error line", async () => {
    const directory = temporaryDirectory();
    const file = join(directory, "greet.mjs");
    writeFileSync(file, EXTENSION);
    const extensions = await ExtensionHost.load([{ path: file, origin: "flag" }], {
      cwd: directory,
      home: directory,
    });
    const runtime = await createTestRuntime({ extensions });
    const app = renderApp(runtime);
    await app.submit("/greet Ada");
    await app.waitForFrame("greeted Ada");
    const custom = runtime.session.session.getBranch().filter((entry) => entry.type === "custom");
    expect(custom).toEqual([expect.objectContaining({ customType: "greeting", data: { name: "Ada" } })]);
    expect(runtime.provider.calls).toHaveLength(0);

    await app.submit("/help");
    await app.waitForFrame("greet someone (extension)");
    await app.submit("/crash");
    await app.waitForFrame("/crash failed: kaput");
    expect(extensions.failures).toEqual([{ path: file, hook: "/crash", message: "kaput" }]);
  });
});
