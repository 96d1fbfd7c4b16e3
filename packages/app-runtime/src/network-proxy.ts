/**
 * Requests behind a proxy: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (or their lower-case forms) are
 * honoured by every request Arbor makes through `fetch` — the providers' SDKs and MCP over HTTP — by
 * installing undici's `EnvHttpProxyAgent` as the process's global dispatcher. Node 20's `fetch` ignores
 * these variables on its own.
 */
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
 * The proxy settings `env` asks for, or undefined when it names no proxy.
 *
 * Contract: pure; upper-case names win over lower-case ones.
 */
export function proxySettings(env: Environment): ProxySettings | undefined {
  const httpsProxy = variable(env, "HTTPS_PROXY");
  const httpProxy = variable(env, "HTTP_PROXY");
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
 * A proxy URL undici cannot read throws its error, which names the variable's value.
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
