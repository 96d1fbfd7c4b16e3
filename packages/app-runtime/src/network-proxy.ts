/**
 * Requests behind a proxy: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (or their lower-case forms) are
 * honoured by every request Arbor makes through `fetch` — the providers' SDKs and MCP over HTTP — by
 * installing undici's `EnvHttpProxyAgent` as the process's global dispatcher. Node 20's `fetch` ignores
 * these variables on its own.
 */
import { ArborUserError } from "./errors.js";
import type { Environment } from "./home.js";

/** The proxy variables of an environment, as undici's `EnvHttpProxyAgent` takes them. */
export interface ProxySettings {
  /** `HTTPS_PROXY` (else `https_proxy`): the proxy of `https:` requests (default: `httpProxy`). */
  httpsProxy?: string;
  /** `HTTP_PROXY` (else `http_proxy`): the proxy of `http:` requests. */
  httpProxy?: string;
  /** `NO_PROXY` (else `no_proxy`): hosts reached directly (comma-separated, `*` for all). */
  noProxy?: string;
}

function variable(env: Environment, name: string): string | undefined {
  const value = env[name] ?? env[name.toLowerCase()];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/**
 * A proxy variable's value as a URL: `host:port` without a scheme is taken as `http://host:port` (as curl
 * takes it).
 *
 * @throws {ArborUserError} (`invalid_proxy`) naming the variable, when it is no http(s) URL.
 */
function proxyUrl(env: Environment, name: string): string | undefined {
  const value = variable(env, name);
  if (value === undefined) return undefined;
  const url = value.includes("://") ? value : `http://${value}`;
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new ArborUserError(
      "invalid_proxy",
      `${name} is not a proxy URL: ${JSON.stringify(value)}. Set it to http://host:port (or https://…), or unset it.`,
    );
  }
  return url;
}

/**
 * The proxy settings `env` asks for, or undefined when it names no proxy.
 *
 * Contract: pure; upper-case names win over lower-case ones; throws `ArborUserError` (`invalid_proxy`) for a
 * value that is no http(s) URL (`host:port` alone is taken as `http://host:port`).
 */
export function proxySettings(env: Environment): ProxySettings | undefined {
  const httpsProxy = proxyUrl(env, "HTTPS_PROXY");
  const httpProxy = proxyUrl(env, "HTTP_PROXY");
  if (httpsProxy === undefined && httpProxy === undefined) return undefined;
  const noProxy = variable(env, "NO_PROXY");
  return {
    ...(httpsProxy === undefined ? {} : { httpsProxy }),
    ...(httpProxy === undefined ? {} : { httpProxy }),
    ...(noProxy === undefined ? {} : { noProxy }),
  };
}

let installed: string | undefined;

/**
 * Routes the process's `fetch` through the proxies `env` names (undici's `EnvHttpProxyAgent`, loaded only
 * then). Returns the settings it installed, or undefined when `env` names no proxy (nothing changes).
 *
 * Contract: process-wide (the global dispatcher); calling it again with the same settings does nothing.
 * A variable that is no http(s) URL throws `ArborUserError` (`invalid_proxy`) before anything is installed.
 */
export async function useEnvironmentProxy(env: Environment): Promise<ProxySettings | undefined> {
  const settings = proxySettings(env);
  if (settings === undefined) return undefined;
  const key = JSON.stringify(settings);
  if (installed === key) return settings;
  const { EnvHttpProxyAgent, setGlobalDispatcher } = await import("undici");
  setGlobalDispatcher(new EnvHttpProxyAgent(settings));
  installed = key;
  return settings;
}
