import { Agent, fetch } from "undici";

/**
 * Loopback only, and no client timeout: a request is never given up before the server answers (a timeout
 * would hide a charge). undici's default headers/body timeouts (300 s) are switched off.
 */
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: 64 });

export interface Sent {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
  startedAt: number;
  ms: number;
}

export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]")
    throw new Error(`soak traffic goes to loopback only, not ${host}`);
}

export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<Sent> {
  assertLoopback(url);
  const startedAt = Date.now();
  const t0 = performance.now();
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: init.headers,
    body: init.body,
    redirect: "manual",
    dispatcher,
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return { status: res.status, headers, text, json, startedAt, ms };
}

export function closeClient(): Promise<void> {
  return dispatcher.close();
}
