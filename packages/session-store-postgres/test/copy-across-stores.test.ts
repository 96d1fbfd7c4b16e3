import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copySessions, Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { SqliteSessionStore } from "@arbor/session-store-sqlite";
import { afterAll, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

const fixtures = join(import.meta.dirname, "../../../fixtures/pi-sessions");
const files = readdirSync(fixtures).filter((file) => file.endsWith(".jsonl"));

/** The non-empty lines of a text. */
const lines = (text: string) => text.split("\n").filter((line) => line !== "");

describeWithPostgres("copySessions across backends", (url) => {
  const schema = temporarySchema(url);
  const directory = mkdtempSync(join(tmpdir(), "arbor-copy-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("copies pi's sessions JSONL → SQLite → PostgreSQL → JSONL with byte-equal entries", async () => {
    // pi's own files, as pi names them.
    const sessions = join(directory, "source", "sessions", "--home-user-project--");
    mkdirSync(sessions, { recursive: true });
    const originals = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(join(fixtures, file), "utf8");
      const head = JSON.parse(lines(text)[0]!) as { id: string; timestamp: string };
      copyFileSync(
        join(fixtures, file),
        join(sessions, `${head.timestamp.replace(/[:.]/g, "-")}_${head.id}.jsonl`),
      );
      originals.set(head.id, lines(text));
    }
    const source = new JsonlSessionStore({ home: join(directory, "source"), readOnly: true });
    const sqlite = new SqliteSessionStore({ file: join(directory, "copy.db") });
    const postgres = PostgresSessionStore.fromUrl(url, { schema });
    const target = new JsonlSessionStore({ home: join(directory, "target"), durability: "flush" });
    const ids = [...originals.keys()];
    expect((await copySessions(source, sqlite)).copied.sort()).toEqual([...ids].sort());
    expect((await copySessions(sqlite, postgres, ids)).entries).toBe(
      [...originals.values()].reduce((sum, file) => sum + file.length - 1, 0),
    );
    await copySessions(postgres, target, ids);

    for (const [id, original] of originals) {
      // The round trip's file holds pi's lines unchanged: the header, then every entry line, byte for
      // byte (the JSONL store adds only its batch framing: a tab before each newline and trailer lines).
      const copied = lines(readFileSync(target.pathOf(id)!, "utf8"))
        .filter((line) => !line.startsWith('{"type":"session","arbor":"batch"'))
        .map((line) => line.replace(/\t$/, ""));
      expect(copied).toEqual(original);
      // And the context every backend builds is the same.
      const contexts = await Promise.all(
        [source, sqlite, postgres, target].map(async (store) =>
          (await Session.open(store, id)).buildContext(),
        ),
      );
      for (const context of contexts.slice(1)) expect(context).toEqual(contexts[0]);
    }
    await Promise.all([source, sqlite, postgres, target].map((store) => store.close()));
  });
});
