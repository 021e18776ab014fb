import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../../workers/batches/webhooks";
import { ApiError } from "../../../workers/errors";

const refused = (url: string, environment = "production") => {
  try {
    checkWebhookUrl(url, environment);
  } catch (e) {
    return e instanceof ApiError && e.code === "invalid_value";
  }
  return false;
};

describe("issue 50 item 6: a webhook URL must be a globally routable host ('refuse every address that is not globally routable')", () => {
  it.each([
    // IPv6 forms that embed an IPv4 address (here the cloud metadata address 169.254.169.254)
    ["IPv4-compatible", "https://[::a9fe:a9fe]/"],
    ["IPv4-mapped", "https://[::ffff:169.254.169.254]/"],
    ["IPv4-translated (RFC 6145)", "https://[::ffff:0:a9fe:a9fe]/"],
    ["NAT64 (64:ff9b::/96)", "https://[64:ff9b::a9fe:a9fe]/"],
    ["local NAT64 (64:ff9b:1::/48)", "https://[64:ff9b:1::a9fe:a9fe]/"],
    ["6to4 (2002::/16)", "https://[2002:a9fe:a9fe::1]/"],
    ["Teredo (2001::/32)", "https://[2001:0:a9fe:a9fe::1]/"],
    // link-local beyond fe80::/16, site-local, unique-local, multicast, loopback, unspecified, documentation
    ["link-local fe90::", "https://[fe90::1]/"],
    ["link-local febf::", "https://[febf:ffff::1]/"],
    ["site-local", "https://[fec0::1]/"],
    ["unique-local", "https://[fd12:3456::1]/"],
    ["IPv6 multicast", "https://[ff02::1]/"],
    ["IPv6 loopback", "https://[::1]/"],
    ["IPv6 unspecified", "https://[::]/"],
    ["IPv6 documentation", "https://[2001:db8::1]/"],
    // IPv4 ranges, and the forms the URL parser turns into them
    ["shared address space 100.64.0.0/10", "https://100.64.0.1/"],
    ["shared address space, top", "https://100.127.255.254/"],
    ["benchmarking 198.18.0.0/15", "https://198.18.0.1/"],
    ["benchmarking, top", "https://198.19.255.254/"],
    ["IPv4 multicast", "https://224.0.0.251/"],
    ["reserved 240.0.0.0/4", "https://240.0.0.1/"],
    ["broadcast", "https://255.255.255.255/"],
    ["this network 0.0.0.0/8", "https://0.1.2.3/"],
    ["private 10/8", "https://10.1.2.3/"],
    ["private 172.16/12", "https://172.31.0.1/"],
    ["link-local 169.254/16", "https://169.254.169.254/"],
    ["loopback, short form", "https://127.1/"],
    ["loopback, one number", "https://2130706433/"],
    ["loopback, hex", "https://0x7f.0.0.1/"],
    ["IETF protocol assignments 192.0.0.0/24", "https://192.0.0.8/"],
    // names that resolve to loopback or only inside a network
    ["localhost", "https://localhost/"],
    ["localhost with a trailing dot", "https://localhost./"],
    ["*.localhost", "https://api.localhost/"],
    ["a single-label name", "https://metadata/"],
    ["*.internal", "https://metadata.google.internal/"],
    ["*.local (mDNS)", "https://printer.local/"],
    ["*.home.arpa", "https://router.home.arpa/"],
  ])("refuses %s: %s", (_what, url) => {
    expect(refused(url)).toBe(true);
  });

  it.each([
    "https://hooks.example.com/svc",
    "https://93.184.216.34/x",
    "https://8.8.8.8/",
    "https://[2606:4700::6810:84e5]/hook",
  ])("accepts a public host: %s", (url) => {
    expect(refused(url)).toBe(false);
  });

  it("keeps http and credentials refused, and loopback http allowed only in the local and test environments", () => {
    expect(refused("http://hooks.example.com/")).toBe(true);
    expect(refused("https://user:pw@hooks.example.com/")).toBe(true);
    expect(refused("http://127.0.0.1:8080/hook", "test")).toBe(false);
    expect(refused("http://localhost:8080/hook", "local")).toBe(false);
    expect(refused("http://127.0.0.1:8080/hook", "production")).toBe(true);
  });
});
