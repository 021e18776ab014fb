import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createClient, RESP_TYPES } from "redis";
import { freePort } from "./free-port";
import { ScriptRewriter } from "./upstash-scripts";

/** Upstash's REST protocol in front of a local redis-server. */
export interface UpstashBridge {
  /** Value for UPSTASH_REDIS_REST_URL. */
  url: string;
  /** Value for UPSTASH_REDIS_REST_TOKEN. */
  token: string;
  port: number;
  /** Stops answering (clients get connection refused), e.g. to test "Redis unavailable". */
  stop(): Promise<void>;
  /** Starts again on the same port. */
  start(): Promise<void>;
}

export interface UpstashBridgeOptions {
  redisUrl: string;
  token?: string;
  port?: number;
}

type Reply = unknown;

/** Starts the bridge on 127.0.0.1 (a free port unless given). */
export async function startUpstashBridge(opts: UpstashBridgeOptions): Promise<UpstashBridge> {
  const port = opts.port ?? (await freePort());
  const token = opts.token ?? "local-upstash-token";
  const tokenHash = sha256(token);
  const scripts = new ScriptRewriter();
  let server: Server | undefined;
  let redis: ReturnType<typeof connectRedis> | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const auth = req.headers.authorization ?? "";
    const given = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (!timingSafeEqual(sha256(given), tokenHash)) {
      return send(res, 401, { error: "Unauthorized" });
    }
    const syncToken = req.headers["upstash-sync-token"];
    if (typeof syncToken === "string") res.setHeader("upstash-sync-token", syncToken);
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "");
    let body: unknown;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString() || "null");
    } catch {
      return send(res, 400, { error: "ERR request body is not valid JSON" });
    }
    const client = redis;
    if (!client?.isReady) return send(res, 503, { error: "ERR redis is unavailable" });
    const enc = (r: Reply) => encode(r, base64);
    try {
      if (path === "" && isCommand(body)) {
        return send(res, 200, { result: enc(await client.sendCommand(scripts.rewrite(toArgs(body)))) });
      }
      if (path === "/pipeline" && Array.isArray(body) && body.every(isCommand)) {
        const replies = await Promise.all(
          body.map((cmd) =>
            client.sendCommand(scripts.rewrite(toArgs(cmd))).then(
              (r) => ({ result: enc(r) }),
              (e: Error) => errorItem(e),
            ),
          ),
        );
        return send(res, 200, replies);
      }
      if (path === "/multi-exec" && Array.isArray(body) && body.every(isCommand)) {
        return send(
          res,
          200,
          await multiExec(
            client,
            body.map((c) => scripts.rewrite(toArgs(c))),
            enc,
          ),
        );
      }
    } catch (error) {
      const status = client.isReady ? 400 : 503;
      return send(res, status, { error: (error as Error).message });
    }
    return send(res, 400, { error: "ERR unsupported request" });
  };

  const start = async () => {
    redis = connectRedis(opts.redisUrl);
    await redis.connect();
    server = createServer((req, res) => {
      handle(req, res).catch((e) => send(res, 500, { error: String(e) }));
    });
    const s = server;
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (s) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    const r = redis;
    redis = undefined;
    if (r?.isOpen) r.destroy();
  };
  await start();
  return { url: `http://127.0.0.1:${port}`, token, port, stop, start };
}

function connectRedis(url: string) {
  const client = createClient({
    url,
    RESP: 2,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000) },
  }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  client.on("error", () => {});
  return client;
}

async function multiExec(
  client: NonNullable<ReturnType<typeof connectRedis>>,
  commands: string[][],
  enc: (r: Reply) => unknown,
): Promise<unknown[]> {
  const multi = client.multi();
  for (const args of commands) multi.addCommand(args);
  try {
    const replies = (await multi.exec()) as Reply[];
    return replies.map((r) => ({ result: enc(r) }));
  } catch (error) {
    const e = error as Error & { replies?: Reply[]; errorIndexes?: number[] };
    if (!e.replies) throw error;
    return e.replies.map((r, i) =>
      e.errorIndexes?.includes(i) ? errorItem(r as Error) : { result: enc(r) },
    );
  }
}

function isCommand(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => !Array.isArray(v));
}

function toArgs(cmd: unknown[]): string[] {
  return cmd.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
}

function errorItem(e: Error | unknown): { error: string } {
  return { error: e instanceof Error ? e.message : String(e) };
}

/** Upstash base64 encoding: every string is base64 except a literal simple "OK"; numbers and nulls stay. */
function encode(reply: Reply, base64: boolean): unknown {
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString("base64") : reply.toString("utf8");
  if (typeof reply === "string")
    return base64 && reply !== "OK" ? Buffer.from(reply).toString("base64") : reply;
  if (Array.isArray(reply)) return reply.map((r) => encode(r, base64));
  if (reply instanceof Error) return reply.message;
  return reply ?? null;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
