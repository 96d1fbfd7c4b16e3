/**
 * The demo server's security rules: it answers only on 127.0.0.1; a request whose `Host` is not the
 * server's own address or whose `Origin` is another site's is refused (DNS rebinding, cross-site
 * requests); the API needs the per-run token (session and entry ids are checked by the protocol's
 * schemas before anything uses them: never a path); every page carries a strict Content-Security-Policy.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The only address the server listens on. */
export const DEMO_HOST = "127.0.0.1";

/** The Content-Security-Policy of every response: the page's own scripts and styles, nothing else. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers sent with every response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "x-frame-options": "DENY",
};

/** A random token for one run of the server (URL-safe, 128 bits). */
export function createToken(): string {
  return randomBytes(16).toString("base64url");
}

/** Why a request is refused: the HTTP status and a message for the page. */
export interface Refusal {
  status: number;
  message: string;
}

/** The token a request carries: the `x-arbor-token` header, else the `token` query parameter (for EventSource). */
function tokenOf(request: IncomingMessage, url: URL): string | undefined {
  const header = request.headers["x-arbor-token"];
  if (typeof header === "string") return header;
  return url.searchParams.get("token") ?? undefined;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks a request against the rules (see the module comment); `api` requests also need the token.
 *
 * Contract: pure; returns undefined when the request may proceed.
 */
export function checkRequest(
  request: IncomingMessage,
  url: URL,
  options: { port: number; token: string; api: boolean },
): Refusal | undefined {
  const own = `${DEMO_HOST}:${options.port}`;
  const allowedHosts = new Set([own, `localhost:${options.port}`]);
  const host = request.headers.host;
  if (host === undefined || !allowedHosts.has(host.toLowerCase())) {
    return { status: 421, message: `This server answers only as http://${own}.` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host.toLowerCase()}`) {
    return { status: 403, message: "Requests from other sites are refused." };
  }
  const site = request.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") {
    return { status: 403, message: "Requests from other sites are refused." };
  }
  if (options.api) {
    const token = tokenOf(request, url);
    if (token === undefined || !sameToken(token, options.token)) {
      return { status: 401, message: "The API needs the token of the URL the server printed." };
    }
  }
  return undefined;
}
