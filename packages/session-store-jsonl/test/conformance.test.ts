import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeSessionStore } from "@internal/conformance";
import { JsonlSessionStore } from "../src/index.js";

const homes = new WeakMap<JsonlSessionStore, string>();

describeSessionStore<JsonlSessionStore>({
  name: "JsonlSessionStore",
  create: () => {
    const home = mkdtempSync(join(tmpdir(), "arbor-jsonl-conformance-"));
    const store = new JsonlSessionStore({ home });
    homes.set(store, home);
    return store;
  },
  destroy: async (store) => {
    await store.close();
    rmSync(homes.get(store)!, { recursive: true, force: true });
  },
  reopen: (store) => new JsonlSessionStore({ home: homes.get(store)! }),
  corrupt: (store, sessionId) => {
    const fd = openSync(store.pathOf(sessionId)!, "r+");
    writeSync(fd, "{not json", 0);
    closeSync(fd);
  },
});
