import { describe, expect, it } from "vitest";
import { proxySettings } from "../src/index.js";

describe("proxySettings", () => {
  it("reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY, upper case first, and nothing without a proxy", () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ NO_PROXY: "localhost" })).toBeUndefined();
    expect(proxySettings({ HTTPS_PROXY: " " })).toBeUndefined();
    expect(
      proxySettings({ https_proxy: "http://lower:1", HTTPS_PROXY: "http://upper:1", no_proxy: "localhost" }),
    ).toEqual({ httpsProxy: "http://upper:1", noProxy: "localhost" });
    expect(proxySettings({ http_proxy: "http://p:3128" })).toEqual({ httpProxy: "http://p:3128" });
  });

  it("takes host:port as an http proxy and refuses a value that is no http(s) URL, naming the variable", () => {
    expect(proxySettings({ HTTPS_PROXY: "proxy.corp:3128" })).toEqual({
      httpsProxy: "http://proxy.corp:3128",
    });
    expect(() => proxySettings({ HTTPS_PROXY: "not a url" })).toThrow(
      'HTTPS_PROXY is not a proxy URL: "not a url". Set it to http://host:port (or https://…), or unset it.',
    );
    expect(() => proxySettings({ http_proxy: "socks5://127.0.0.1:1080" })).toThrow(
      /^HTTP_PROXY is not a proxy URL/,
    );
  });
});
