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
});
