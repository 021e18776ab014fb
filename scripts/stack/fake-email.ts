/**
 * A local stand-in for the e-mail API (Resend's shape): `POST /emails` with `authorization: Bearer <key>` and
 * `{from, to[], subject, text}` answers `{id}` and keeps the message in an inbox instead of sending it.
 * Tests and the demo read the inbox: `GET /__inbox?to=<address>` (newest last), `DELETE /__inbox`.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { guarded } from "./guarded";
import { readBody } from "./read-body";

export interface CapturedEmail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  created_at: string;
}

export interface FakeEmail {
  url: string;
  apiKey: string;
  inbox(to?: string): CapturedEmail[];
  /** The last 8-digit code sent to `to`, if any. */
  lastCode(to: string): string | undefined;
  close(): Promise<void>;
}

/** Starts the fake on a free loopback port (or `port`); `apiKey` is what senders must present. */
export async function startFakeEmail(opts: { port?: number; apiKey?: string } = {}): Promise<FakeEmail> {
  const apiKey = opts.apiKey ?? `re_local_${randomUUID().replaceAll("-", "")}`;
  const messages: CapturedEmail[] = [];
  const inbox = (to?: string) =>
    to === undefined
      ? [...messages]
      : messages.filter((m) => m.to.some((t) => t.toLowerCase() === to.toLowerCase()));
  const server: Server = createServer(
    guarded(async (req, res) => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      const url = new URL(req.url ?? "/", "http://fake");
      if (url.pathname === "/__inbox" && req.method === "GET")
        return send(200, { data: inbox(url.searchParams.get("to") ?? undefined) });
      if (url.pathname === "/__inbox" && req.method === "DELETE") {
        messages.length = 0;
        return send(200, { deleted: true });
      }
      if (url.pathname !== "/emails" || req.method !== "POST")
        return send(404, { name: "not_found", message: "Not found" });
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        return send(401, {
          statusCode: 401,
          name: "missing_api_key",
          message: "Missing API key in the authorization header",
        });
      let body: Partial<CapturedEmail> & { to?: string | string[] };
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return send(422, { statusCode: 422, name: "validation_error", message: "Invalid JSON" });
      }
      const to = Array.isArray(body.to) ? body.to : body.to ? [body.to] : [];
      if (!body.from || to.length === 0 || !body.subject)
        return send(422, {
          statusCode: 422,
          name: "validation_error",
          message: "from, to and subject are required",
        });
      const id = randomUUID();
      messages.push({
        id,
        from: body.from,
        to,
        subject: body.subject,
        text: body.text ?? "",
        created_at: new Date().toISOString(),
      });
      send(200, { id });
    }),
  );
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    inbox,
    lastCode: (to) => {
      const last = inbox(to).at(-1);
      return last ? /\b(\d{8})\b/.exec(last.text)?.[1] : undefined;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
