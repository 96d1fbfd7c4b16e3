/**
 * A fake PostgreSQL server for the connection-failure tests: it answers a client's first message with an
 * ErrorResponse of the given SQLSTATE (as a server starting up or shutting down does) and closes, or resets
 * the connection at once.
 */
import { createServer, type Server } from "node:net";

/** What the fake server does with each connection. */
export type FakeServerBehaviour = { kind: "error"; sqlState: string; message: string } | { kind: "reset" };

/** An ErrorResponse message (`E`) with severity FATAL. */
function errorResponse(sqlState: string, message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from(`SFATAL\0VFATAL\0C${sqlState}\0M${message}\0`, "utf8"),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write("E", 0, "ascii");
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/** Starts the server on 127.0.0.1; resolves with its port and a `close`. */
export async function startFakeServer(
  behaviour: FakeServerBehaviour,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((socket) => {
    socket.once("data", () => {
      if (behaviour.kind === "reset") socket.resetAndDestroy();
      else socket.end(errorResponse(behaviour.sqlState, behaviour.message));
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
