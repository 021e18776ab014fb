import ipaddr from "ipaddr.js";
import { ApiError } from "../errors";

/**
 * Name suffixes that never name a public host: `localhost` and `*.localhost` resolve to loopback (RFC 6761);
 * `.local` is mDNS, `.internal` and `.home.arpa` are private-use zones (cloud metadata lives under `.internal`).
 */
const PRIVATE_NAME = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home\.arpa)$/i;

/** IPv6 global unicast (RFC 4291 §2.4: 2000::/3); everything else is loopback, local, mapped, multicast… */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * True for an IP literal that is globally routable: ipaddr.js's `range()` is `unicast` (not private, loopback,
 * link-local, shared 100.64.0.0/10, benchmarking 198.18.0.0/15, multicast, reserved, documentation, 6to4,
 * Teredo, NAT64, IPv4-mapped or -translated…), and an IPv6 one lies in 2000::/3 (which leaves out the
 * deprecated IPv4-compatible `::a.b.c.d` that ipaddr.js calls unicast).
 */
export function globallyRoutable(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.range() !== "unicast") return false;
  return ip.kind() === "ipv4" || ip.match(GLOBAL_UNICAST_V6);
}

/** A host name of the public DNS: at least two labels, none of the private-use or loopback suffixes. */
function publicName(host: string): boolean {
  const name = host.replace(/\.$/, "");
  return name.includes(".") && !PRIVATE_NAME.test(name);
}

const refuse = () =>
  new ApiError("invalid_value", {
    param: "url",
    message: "`url` must be a public host, without credentials.",
  });

/**
 * An endpoint URL: https only, never credentials, and a host that is globally routable: an IP literal in
 * public unicast space (`globallyRoutable`) or a public DNS name. Names are not resolved here (Workers cannot);
 * a public name pointing at a private address is for the egress to refuse (docs/deploy.md). Local stacks and
 * tests may use http on 127.0.0.1 / localhost. Returns the URL as the parser wrote it.
 */
export function checkWebhookUrl(value: string, environment: string | undefined): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError("invalid_value", { param: "url", message: "`url` must be an absolute https URL." });
  }
  const local = environment === "local" || environment === "test";
  const loopback = url.hostname === "127.0.0.1" || url.hostname === "localhost";
  if (local && loopback && (url.protocol === "http:" || url.protocol === "https:")) return url.toString();
  if (url.protocol !== "https:")
    throw new ApiError("invalid_value", { param: "url", message: "`url` must use https." });
  if (url.username || url.password) throw refuse();
  // The URL parser has already turned every IPv4 spelling (127.1, 0x7f.0.0.1, 2130706433) into a dotted quad
  // and written IPv6 in brackets.
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const literal = ipaddr.isValid(host);
  if (literal ? !globallyRoutable(host) : !publicName(host)) throw refuse();
  return url.toString();
}
