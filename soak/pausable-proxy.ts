import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 in front of one port. `pause()` stalls it: bytes stop flowing both ways and new
 * connections wait (nothing is refused or cut), until `resume()`. Used to stall Postgres.
 */
export interface PausableProxy {
  port: number;
  paused(): boolean;
  pause(): void;
  resume(): void;
  /** Cuts every connection open now (queries in flight fail); new ones still wait while paused. */
  cut(): void;
  close(): Promise<void>;
}

export async function startPausableProxy(targetPort: number, port = 0): Promise<PausableProxy> {
  let isPaused = false;
  const pipes = new Set<Socket>();
  const waiting: Array<() => void> = [];
  const waitingSockets = new Set<Socket>();
  const link = (client: Socket) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      pipes.add(s);
      s.on("close", () => pipes.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    if (isPaused) {
      client.pause();
      upstream.pause();
    }
  };
  const server: Server = createServer((client) => {
    if (isPaused) {
      client.pause();
      pipes.add(client);
      waitingSockets.add(client);
      waiting.push(() => {
        waitingSockets.delete(client);
        client.resume();
        link(client);
      });
    } else link(client);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    port: bound,
    paused: () => isPaused,
    pause() {
      isPaused = true;
      for (const s of pipes) s.pause();
    },
    resume() {
      isPaused = false;
      for (const s of pipes) s.resume();
      for (const go of waiting.splice(0)) go();
    },
    cut() {
      for (const s of pipes) if (!waitingSockets.has(s)) s.destroy();
    },
    close: () =>
      new Promise((r) => {
        for (const s of pipes) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A Postgres URL routed through a new pausable proxy on 127.0.0.1 (to stall that database in a test). */
export async function pausableDatabase(databaseUrl: string): Promise<{ proxy: PausableProxy; url: string }> {
  const db = new URL(databaseUrl);
  const proxy = await startPausableProxy(Number(db.port));
  db.hostname = "127.0.0.1";
  db.port = String(proxy.port);
  return { proxy, url: db.toString() };
}
