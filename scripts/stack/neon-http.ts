import { Client } from "@neondatabase/serverless";
import ws from "ws";

/** Reply of the HTTP SQL endpoint: status and JSON body in Neon's shape. */
export interface SqlReply {
  status: number;
  body: unknown;
}

interface BatchOptions {
  isolationLevel: string;
  readOnly: boolean;
  deferrable: boolean;
}

interface QueryData {
  query: string;
  params?: unknown[];
}

// Neon's HTTP endpoint answers raw text (Neon-Raw-Text-Output); the driver parses by dataTypeID.
const RAW_TYPES = { getTypeParser: () => (value: string) => value };
const ISOLATION: Record<string, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;
const MAX_IDLE = 8;
/**
 * Connections open per database at most; a request beyond them waits for one, as behind Neon's pooler. Without
 * a cap a burst (16 concurrent decides and their background writes) opened a connection per request until a
 * PostgreSQL server refused them ("sorry, too many clients already": 503 `maintenance` at the edge).
 */
const MAX_OPEN = 32;

/** Runs Neon HTTP-endpoint requests over wire connections (made with the Neon driver through our WS proxy). */
export class NeonHttpExecutor {
  private readonly idle = new Map<string, Client[]>();
  /** Every open connection, with the connection string it counts against. */
  private readonly all = new Map<Client, string>();
  /** Requests waiting for a connection: handed a released one, or undefined when a slot frees up. */
  private readonly waiting = new Map<string, Array<(client: Client | undefined) => void>>();

  constructor(private readonly wsProxy: string) {}

  /** Executes one `{query, params}` or a `{queries:[...]}` batch (one transaction). */
  async execute(connectionString: string, rawBody: string, batch: BatchOptions): Promise<SqlReply> {
    let body: { query?: string; params?: unknown[]; queries?: QueryData[] };
    try {
      body = JSON.parse(rawBody);
    } catch {
      return { status: 400, body: { message: "request body is not valid JSON" } };
    }
    if (!connectionString) return { status: 400, body: { message: "missing Neon-Connection-String header" } };
    let client: Client;
    try {
      client = await this.acquire(connectionString);
    } catch (error) {
      return { status: 502, body: { message: `could not connect to the database: ${String(error)}` } };
    }
    let healthy = true;
    try {
      if (Array.isArray(body.queries)) {
        return { status: 200, body: { results: await runBatch(client, body.queries, batch) } };
      }
      return {
        status: 200,
        body: await runOne(client, { query: body.query ?? "", params: body.params ?? [] }),
      };
    } catch (error) {
      const e = error as Record<string, unknown> & { message?: string };
      if (typeof e.code !== "string") {
        healthy = false;
        return { status: 502, body: { message: String(e.message ?? error) } };
      }
      const out: Record<string, unknown> = { message: e.message };
      for (const f of ERROR_FIELDS) if (e[f] !== undefined) out[f] = e[f];
      return { status: 400, body: out };
    } finally {
      this.release(connectionString, client, healthy);
    }
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    const clients = [...this.all.keys()];
    this.all.clear();
    this.idle.clear();
    await Promise.allSettled(clients.map((c) => c.end()));
  }

  private async acquire(connectionString: string): Promise<Client> {
    const ready = this.idle.get(connectionString)?.pop();
    if (ready) return ready;
    if (this.openTo(connectionString) >= MAX_OPEN) {
      const handed = await new Promise<Client | undefined>((resolve) => {
        const queue = this.waiting.get(connectionString) ?? [];
        queue.push(resolve);
        this.waiting.set(connectionString, queue);
      });
      if (handed) return handed;
    }
    const client = new Client(connectionString);
    client.neonConfig.webSocketConstructor = ws;
    client.neonConfig.wsProxy = (host, port) => `${this.wsProxy}?address=${host}:${port}`;
    client.neonConfig.useSecureWebSocket = false;
    client.neonConfig.pipelineConnect = false;
    client.on("error", () => this.drop(client));
    this.all.set(client, connectionString);
    try {
      await client.connect();
    } catch (error) {
      this.drop(client);
      throw error;
    }
    return client;
  }

  private release(connectionString: string, client: Client, healthy: boolean): void {
    if (!healthy || !this.all.has(client)) {
      this.drop(client);
      return;
    }
    const next = this.waiting.get(connectionString)?.shift();
    if (next) {
      next(client);
      return;
    }
    const list = this.idle.get(connectionString) ?? [];
    if (list.length >= MAX_IDLE) {
      this.drop(client);
      return;
    }
    list.push(client);
    this.idle.set(connectionString, list);
  }

  private openTo(connectionString: string): number {
    let n = 0;
    for (const owner of this.all.values()) if (owner === connectionString) n++;
    return n;
  }

  /** Closes a connection and frees its slot for the next waiting request. */
  private drop(client: Client): void {
    const connectionString = this.all.get(client);
    if (connectionString === undefined) return;
    this.all.delete(client);
    const list = this.idle.get(connectionString);
    const i = list?.indexOf(client) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    client.end().catch(() => {});
    this.waiting.get(connectionString)?.shift()?.(undefined);
  }
}

async function runOne(client: Client, q: QueryData): Promise<unknown> {
  const result: unknown = await client.query({
    text: q.query,
    values: q.params ?? [],
    rowMode: "array",
    types: RAW_TYPES,
  } as never);
  const last = (Array.isArray(result) ? result.at(-1) : result) as {
    command: string;
    rowCount: number | null;
    fields: Array<Record<string, unknown>>;
    rows: unknown[][];
  };
  return {
    command: last.command,
    rowCount: last.rowCount,
    rowAsArray: true,
    fields: last.fields.map((f) => ({
      name: f.name,
      dataTypeID: f.dataTypeID,
      tableID: f.tableID,
      columnID: f.columnID,
      dataTypeSize: f.dataTypeSize,
      dataTypeModifier: f.dataTypeModifier,
      format: f.format,
    })),
    rows: last.rows,
  };
}

async function runBatch(client: Client, queries: QueryData[], opts: BatchOptions): Promise<unknown[]> {
  const mode = [
    ISOLATION[opts.isolationLevel] ? `ISOLATION LEVEL ${ISOLATION[opts.isolationLevel]}` : "",
    opts.readOnly ? "READ ONLY" : "",
    opts.deferrable ? "DEFERRABLE" : "",
  ]
    .filter(Boolean)
    .join(" ");
  await client.query(`BEGIN ${mode}`);
  try {
    const results: unknown[] = [];
    for (const q of queries) results.push(await runOne(client, q));
    await client.query("COMMIT");
    return results;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
