import { describeSessionStore } from "@internal/conformance";
import pg from "pg";
import { PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

describeWithPostgres("PostgresSessionStore conformance", (url) => {
  const schema = temporarySchema(url);
  // Every test's store has its own pool on the same schema, as processes sharing one database do.
  describeSessionStore<PostgresSessionStore>({
    name: "PostgresSessionStore",
    create: () => PostgresSessionStore.fromUrl(url, { schema, pool: { max: 4 } }),
    reopen: () => PostgresSessionStore.fromUrl(url, { schema, pool: { max: 4 } }),
    corrupt: async (_store, sessionId) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`UPDATE "${schema}".sessions SET header = '"not a header"' WHERE id = $1`, [
        sessionId,
      ]);
      await client.end();
    },
  });
});
