/**
 * A local stand-in for the operators' chat webhook (Slack's incoming-webhook shape): `POST /hook` with
 * `{text, blocks?}` answers `ok` and keeps the message instead of posting it. Tests and operators read them:
 * `GET /alerts` (oldest first), `DELETE /alerts`; `PUT /__fail` / `DELETE /__fail` make it answer 500 (a
 * receiver outage: the Worker retries on its next tick).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { guarded } from "./guarded";
import { readBody } from "./read-body";

export interface CapturedAlert {
  text: string;
  blocks?: unknown[];
  received_at: string;
}

export interface FakeAlerts {
  /** The webhook URL to give the Worker (`ALERT_WEBHOOK_URL`). */
  hookUrl: string;
  /** The base URL (`GET {url}/alerts`). */
  url: string;
  received(): CapturedAlert[];
  setFailing(on: boolean): void;
  close(): Promise<void>;
}

/** Starts the capture server on a free loopback port (or `port`). */
export async function startFakeAlerts(opts: { port?: number } = {}): Promise<FakeAlerts> {
  const messages: CapturedAlert[] = [];
  let failing = false;
  const server: Server = createServer(
    guarded(async (req, res) => {
      const send = (status: number, body: string, type = "application/json") => {
        res.writeHead(status, { "content-type": type });
        res.end(body);
      };
      const path = new URL(req.url ?? "/", "http://fake").pathname;
      if (path === "/alerts" && req.method === "GET") return send(200, JSON.stringify({ data: messages }));
      if (path === "/alerts" && req.method === "DELETE") {
        messages.length = 0;
        return send(200, JSON.stringify({ deleted: true }));
      }
      if (path === "/__fail" && (req.method === "PUT" || req.method === "DELETE")) {
        failing = req.method === "PUT";
        return send(200, JSON.stringify({ failing }));
      }
      if (path !== "/hook" || req.method !== "POST") return send(404, "no_service", "text/plain");
      if (failing) return send(500, "server_error", "text/plain");
      let body: { text?: unknown; blocks?: unknown };
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return send(400, "invalid_payload", "text/plain");
      }
      if (typeof body.text !== "string" || !body.text) return send(400, "no_text", "text/plain");
      messages.push({
        text: body.text,
        ...(Array.isArray(body.blocks) && { blocks: body.blocks }),
        received_at: new Date().toISOString(),
      });
      send(200, "ok", "text/plain");
    }),
  );
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    hookUrl: `${url}/hook`,
    received: () => [...messages],
    setFailing: (on) => {
      failing = on;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
