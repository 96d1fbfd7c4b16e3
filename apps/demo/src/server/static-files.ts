/**
 * Serving the built page: files under the web root only (a path that leaves it, or names a dot file, is
 * not found), with their content type; `/` is `index.html`, which is never cached (it names the hashed
 * assets, which are).
 */
import { readFileSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { SECURITY_HEADERS } from "./security.js";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
};

function notFound(response: ServerResponse, message: string): void {
  response.writeHead(404, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
  response.end(message);
}

/**
 * The file of `pathname` under `root`, or undefined when the path leaves the root, names a dot file or
 * has an encoding that cannot be read.
 *
 * Contract: pure (no file system access).
 */
export function staticPath(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const relative = decoded === "/" ? "index.html" : decoded.replace(/^\/+/, "");
  const parts = relative.split(/[\\/]/);
  if (parts.some((part) => part === ".." || part.startsWith("."))) return undefined;
  const file = normalize(join(root, relative));
  return file.startsWith(normalize(root) + sep) ? file : undefined;
}

/** Sends the file of `pathname` from `root` (see the module comment). */
export function serveStatic(root: string, pathname: string, response: ServerResponse): void {
  const file = staticPath(root, pathname);
  if (file === undefined) {
    notFound(response, "Not found.");
    return;
  }
  try {
    if (!statSync(file).isFile()) throw new Error("not a file");
  } catch {
    notFound(
      response,
      pathname === "/" ? "The page is not built: run `pnpm --filter @arbor/demo build`." : "Not found.",
    );
    return;
  }
  const body = readFileSync(file);
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "cache-control": file.endsWith(".html") ? "no-store" : "public, max-age=31536000, immutable",
    "content-length": body.length,
  });
  response.end(body);
}
