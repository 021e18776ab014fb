// A tiny Worker used by test/integration/stack-workerd.test.ts: it proves the shared DB module and the
// Upstash client work from inside workerd through the local bridges.
import { Redis } from "@upstash/redis/cloudflare";
import { getSql, withTransaction } from "../../workers/stores/db";

interface ProbeEnv {
  DATABASE_URL: string;
  NEON_WS_PROXY: string;
  NEON_HTTP_ENDPOINT: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

export default {
  async fetch(request: Request, env: ProbeEnv): Promise<Response> {
    const id = new URL(request.url).searchParams.get("id") ?? "acc_probe";
    const sql = getSql(env);
    const [http] = await sql`SELECT ${id}::text AS id, ARRAY['a','b']::text[] AS a`;
    const committed = await withTransaction(env, async (c) => {
      await c.query("INSERT INTO accounts (id) VALUES ($1)", [id]);
      return (await c.query("SELECT count(*)::int AS n FROM accounts WHERE id = $1", [id])).rows[0];
    });
    let rolledBack = false;
    await withTransaction(env, async (c) => {
      await c.query("INSERT INTO accounts (id) VALUES ($1)", [`${id}_rb`]);
      throw new Error("rollback");
    }).catch(() => {
      rolledBack = true;
    });
    const [after] = await sql`SELECT count(*)::int AS n FROM accounts WHERE id = ${`${id}_rb`}`;
    let duplicate = "";
    await sql`INSERT INTO accounts (id) VALUES (${id})`.catch((e: { code?: string }) => {
      duplicate = e.code ?? "";
    });
    const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
    const n = await redis.incr(`probe:${id}`);
    return Response.json({ http, committed, rolledBack, after, duplicate, n });
  },
};
