import { Client, neonConfig } from "@neondatabase/serverless";
import ws from "ws";
import type { QueryFn } from "../migrations";

/** Where the Neon driver should go locally: the bridge's WS proxy and HTTP endpoint (omit both for real Neon). */
export interface NeonTarget {
  wsProxy?: string;
  httpEndpoint?: string;
}

/**
 * Configures the process-wide Neon driver settings for Node (tests, scripts): `ws` as WebSocket,
 * and the local bridge when given. Same settings as `workers/stores/db.ts` applies inside workerd.
 */
export function configureNeonForNode(target: NeonTarget): void {
  neonConfig.webSocketConstructor = ws;
  if (target.wsProxy) {
    const proxy = target.wsProxy;
    neonConfig.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  if (target.httpEndpoint) {
    const endpoint = target.httpEndpoint;
    neonConfig.fetchEndpoint = () => endpoint;
  }
}

/** Opens one connection, hands `fn` a QueryFn on it, and closes it after. */
export async function withNodeClient<T>(
  databaseUrl: string,
  target: NeonTarget,
  fn: (query: QueryFn, client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client(databaseUrl);
  client.neonConfig.webSocketConstructor = ws;
  if (target.wsProxy) {
    const proxy = target.wsProxy;
    client.neonConfig.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
    client.neonConfig.useSecureWebSocket = false;
    client.neonConfig.pipelineConnect = false;
  }
  await client.connect();
  try {
    const query: QueryFn = async (sql, params) => {
      const result = await client.query(sql, params as unknown[] | undefined);
      const last = Array.isArray(result) ? result[result.length - 1] : result;
      return { rows: (last?.rows ?? []) as Array<Record<string, unknown>> };
    };
    return await fn(query, client);
  } finally {
    await client.end().catch(() => {});
  }
}
