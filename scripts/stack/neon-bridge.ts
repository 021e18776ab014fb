import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { WebSocketServer } from "ws";
import { freePort } from "./free-port";
import { guarded } from "./guarded";
import { NeonHttpExecutor } from "./neon-http";

/** Neon's two local faces: the WebSocket proxy (`/v2?address=host:port`) and the HTTP SQL endpoint (`/sql`). */
export interface NeonBridge {
  port: number;
  /** Value for NEON_WS_PROXY: `127.0.0.1:PORT/v2` (the driver appends `?address=host:port`). */
  wsProxy: string;
  /** Value for NEON_HTTP_ENDPOINT: `http://127.0.0.1:PORT/sql`. */
  httpEndpoint: string;
  stop(): Promise<void>;
}

export interface NeonBridgeOptions {
  port?: number;
  /** Hosts the WebSocket proxy may dial (default: loopback only, so it is no open relay). */
  allowedHosts?: string[];
}

// A Postgres Terminate message: 'X' then length 4. PGlite does not hang up on it, so the bridge does.
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);

/** Starts the bridge on 127.0.0.1 (a free port unless given). */
export async function startNeonBridge(opts: NeonBridgeOptions = {}): Promise<NeonBridge> {
  const port = opts.port ?? (await freePort());
  const allowed = new Set(opts.allowedHosts ?? ["127.0.0.1", "localhost", "::1"]);
  const wsProxy = `127.0.0.1:${port}/v2`;
  const http = new NeonHttpExecutor(wsProxy);
  const sockets = new Set<Socket>();

  const server: Server = createServer(
    guarded((req, res) => {
      if (req.method === "POST" && req.url?.split("?")[0] === "/sql") return handleSql(http, req, res);
      res.writeHead(404, { "content-type": "application/json" }).end('{"message":"not found"}');
    }),
  );

  // Node closes an idle keep-alive connection after 5 s; workerd keeps it pooled longer and a query after a
  // longer pause (a 100 MB batch upload read for 15 s) met a closed socket: "Network connection lost".
  // Proxies in front of a real endpoint keep idle connections about a minute; so does this one.
  server.keepAliveTimeout = 65_000;

  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://bridge");
    const [host, portText] = splitAddress(url.searchParams.get("address") ?? "");
    if (url.pathname !== "/v2" || !host || !allowed.has(host) || !portText) {
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const tcp = connect(Number(portText), host);
      sockets.add(tcp);
      const pending: Buffer[] = [];
      let open = false;
      tcp.on("connect", () => {
        open = true;
        for (const chunk of pending.splice(0)) tcp.write(chunk);
      });
      tcp.on("data", (data) => ws.send(data));
      tcp.on("close", () => {
        sockets.delete(tcp);
        ws.close();
      });
      tcp.on("error", () => ws.close());
      ws.on("message", (data: Buffer) => {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
        if (open) tcp.write(chunk);
        else pending.push(chunk);
        if (chunk.length >= 5 && chunk.subarray(chunk.length - 5).equals(TERMINATE)) {
          tcp.end();
          ws.close();
        }
      });
      ws.on("close", () => tcp.end());
      ws.on("error", () => tcp.destroy());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });

  return {
    port,
    wsProxy,
    httpEndpoint: `http://127.0.0.1:${port}/sql`,
    async stop() {
      await http.close();
      for (const client of wss.clients) client.terminate();
      for (const s of sockets) s.destroy();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitAddress(address: string): [string, string] {
  const i = address.lastIndexOf(":");
  if (i <= 0) return ["", ""];
  return [address.slice(0, i).replace(/^\[|\]$/g, ""), address.slice(i + 1)];
}

async function handleSql(http: NeonHttpExecutor, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const reply = await http.execute(header(req, "neon-connection-string"), Buffer.concat(chunks).toString(), {
    isolationLevel: header(req, "neon-batch-isolation-level"),
    readOnly: header(req, "neon-batch-read-only") === "true",
    deferrable: header(req, "neon-batch-deferrable") === "true",
  });
  res.writeHead(reply.status, { "content-type": "application/json" }).end(JSON.stringify(reply.body));
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}
