/**
 * The client network of a request: the address the edge reports (`cf-connecting-ip`) reduced to its IPv4 /24
 * or IPv6 /48 prefix, so one household, office or mobile carrier NAT counts once (a /48 is what one site is
 * commonly given: its /64s are not separate networks). Without a usable address every such request shares
 * the network `unknown`.
 */
export function clientNetwork(address: string | undefined): string {
  const ip = address?.trim() ?? "";
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4?.slice(1).every((o) => Number(o) <= 255))
    return `${Number(v4[1])}.${Number(v4[2])}.${Number(v4[3])}.0/24`;
  const groups = ipv6Groups(ip);
  if (groups) {
    const mapped = groups.slice(0, 6).join(":") === "0:0:0:0:0:ffff";
    if (mapped) {
      const [a, b] = [groups[6]!, groups[7]!].map((g) => Number.parseInt(g, 16));
      return `${a! >> 8}.${a! & 255}.${b! >> 8}.0/24`;
    }
    return `${groups.slice(0, 3).join(":")}::/48`;
  }
  return "unknown";
}

/** The eight hextets of an IPv6 address (lower-case, no leading zeros), or null. */
function ipv6Groups(ip: string): string[] | null {
  if (!ip.includes(":") || !/^[0-9a-fA-F:.]+$/.test(ip)) return null;
  let text = ip;
  const v4tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4tail) {
    const o = v4tail.slice(1).map(Number);
    if (o.some((n) => n > 255)) return null;
    text = `${text.slice(0, v4tail.index)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return all.map((g) => Number.parseInt(g, 16).toString(16));
}
