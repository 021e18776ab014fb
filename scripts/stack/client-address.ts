import { Agent, createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The header Cloudflare's edge sets to the client's address (and overwrites when a client sends it). */
export const CLIENT_ADDRESS_HEADER = "cf-connecting-ip";

/** The front door of the local Worker: its URL and how to close it. */
export interface ClientAddressFront {
  url: string;
  close(): Promise<void>;
}

/**
 * The address a request came from, as the edge would report it: the socket's peer, IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) written as IPv4.
 */
export function socketAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? "";
  return peer.startsWith("::ffff:") && peer.includes(".") ? peer.slice(7) : peer;
}

/**
 * The headers to forward: the client's own, except any `cf-connecting-ip` it sent, which is replaced by the
 * socket's address. Miniflare keeps a client-sent value (it sets the header only when absent), so without
 * this front anyone could pick their network locally (issue 50 item 4; docs/decisions.md).
 */
export function forwardedHeaders(req: IncomingMessage): string[] {
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.toLowerCase() !== CLIENT_ADDRESS_HEADER)
      out.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  out.push(CLIENT_ADDRESS_HEADER, socketAddress(req));
  return out;
}

/**
 * Listens on `host:port` (0 = a free port) and forwards every request, streamed both ways, to the Worker at
 * `target` with `cf-connecting-ip` set from the socket, the way Cloudflare's edge does in production.
 */
export async function startClientAddressFront(
  target: string,
  opts: { host: string; port: number },
): Promise<ClientAddressFront> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server: Server = createServer((req, res) => {
    const out = request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: forwardedHeaders(req),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    out.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { "content-type": "text/plain" }).end("the local Worker did not answer");
    });
    req.on("error", () => out.destroy());
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
