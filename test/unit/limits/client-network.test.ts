import { describe, expect, it } from "vitest";
import { clientNetwork } from "../../../workers/limits/client-network";
import { waitSeconds } from "../../../workers/limits/sign-in-limits";

describe("client network (IPv4 /24, IPv6 /48 of cf-connecting-ip; issue 45 item 1: IPv6 networks count at /48)", () => {
  it.each([
    ["203.0.113.7", "203.0.113.0/24"],
    ["203.0.113.254", "203.0.113.0/24"],
    [" 10.1.2.3 ", "10.1.2.0/24"],
    ["2001:db8:abcd:12::1", "2001:db8:abcd::/48"],
    ["2001:0db8:abcd:0012:ffff:ffff:ffff:ffff", "2001:db8:abcd::/48"],
    ["2001:DB8:ABCD:12:1:2:3:4", "2001:db8:abcd::/48"],
    ["2001:db8:abcd:ffff::9", "2001:db8:abcd::/48"],
    ["2001:db8:abce::1", "2001:db8:abce::/48"],
    ["::1", "0:0:0::/48"],
    ["::ffff:198.51.100.9", "198.51.100.0/24"],
    ["fe80::1%eth0", "unknown"],
    ["256.1.1.1", "unknown"],
    ["1:2:3:4:5:6:7:8:9", "unknown"],
    ["", "unknown"],
    [undefined, "unknown"],
  ])("%s → %s", (ip, network) => {
    expect(clientNetwork(ip)).toBe(network);
  });

  it("retry-after is the real wait, 1 s to the window", () => {
    expect(waitSeconds(10_500, 3600, 10_000)).toBe(1);
    expect(waitSeconds(10_000 + 1_800_000, 3600, 10_000)).toBe(1800);
    expect(waitSeconds(10_000 + 9_999_000, 3600, 10_000)).toBe(3600);
    expect(waitSeconds(5_000, 3600, 10_000)).toBe(1);
  });
});
