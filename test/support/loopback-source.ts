import { Agent, fetch as undiciFetch } from "undici";

/**
 * A loopback address in a /24 of its own (127.x.y.1; Linux routes all of 127.0.0.0/8 to lo), so a test can
 * come from a client network of its own for real: the local Worker's front reads the socket, never a header.
 */
export function loopbackNetwork(): string {
  const r = () => 1 + Math.floor(Math.random() * 254);
  return `127.${r()}.${r()}.1`;
}

/** `fetch` whose connections leave from `localAddress` (a loopback address of `loopbackNetwork()`). */
export function fetchFrom(localAddress: string): typeof fetch {
  const dispatcher = new Agent({ localAddress });
  return ((input: string, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}
