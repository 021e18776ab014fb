import { neon, Pool } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { applyMigrations, listMigrations } from "../../../scripts/migrations";
import { withNodeClient } from "../../../scripts/stack/neon-node";
import { seedAccount } from "../../../scripts/stack/seed";
import { postgresTargets, stack } from "../../support/stack-db";

// The default run uses PGlite; .ci/run also runs this file with REAL_DATABASE_URL naming the machine's
// PostgreSQL 15, reached through the same local Neon bridge.
const targets = postgresTargets();

describe.each(targets)("Postgres through the real Neon driver ($name)", ({ url }) => {
  const migrate = () =>
    withNodeClient(url(), { wsProxy: stack().NEON_WS_PROXY }, (q) => applyMigrations(q).then(() => q));

  it("migrations: numbered files applied in order, recorded in schema_migrations, idempotent", async () => {
    await migrate();
    const again = await withNodeClient(url(), { wsProxy: stack().NEON_WS_PROXY }, (q) => applyMigrations(q));
    expect(again).toEqual([]);
    const rows = await neon(url())`SELECT version, name FROM schema_migrations ORDER BY version`;
    expect(rows).toEqual(listMigrations().map((m) => ({ version: m.version, name: m.name })));
  });

  it("neon() over the HTTP endpoint: parameters, types, arrays, nulls", async () => {
    await migrate();
    const sql = neon(url());
    const [row] = await sql`SELECT ${"x"}::text AS s, 42::int AS i, 10000000000::bigint AS b, true AS t,
      ARRAY['decide','usage:read']::text[] AS a, NULL::text AS n, '2026-01-02T03:04:05Z'::timestamptz AS ts`;
    expect(row).toEqual({
      s: "x",
      i: 42,
      b: "10000000000",
      t: true,
      a: ["decide", "usage:read"],
      n: null,
      ts: new Date("2026-01-02T03:04:05Z"),
    });
  });

  it("accounts/api_keys: seeded key found by secret_sha256; unique violation is 23505 on both paths", async () => {
    await migrate();
    const sql = neon(url());
    const seeded = await seedAccount((text, params) => sql.query(text, params), {
      email: `u-${Date.now()}-${Math.random()}@example.test`,
    });
    const key = seeded.keys[0]!;
    const rows = await sql.query(
      "SELECT k.id, k.mode, k.scopes, a.status FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.secret_sha256 = $1",
      [key.hash],
    );
    expect(rows).toEqual([
      { id: key.id, mode: "live", scopes: ["decide", "usage:read", "balance:read"], status: "active" },
    ]);
    expect(seeded.accountId).toMatch(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/);

    const dup = "INSERT INTO accounts (id) VALUES ($1)";
    await expect(sql.query(dup, [seeded.accountId])).rejects.toMatchObject({ code: "23505" });
    const pool = new Pool({ connectionString: url() });
    try {
      await expect(pool.query(dup, [seeded.accountId])).rejects.toMatchObject({ code: "23505" });
    } finally {
      await pool.end();
    }
  });

  it("check constraints: status in (active, suspended), mode in (live, test)", async () => {
    await migrate();
    const sql = neon(url());
    await expect(
      sql.query("INSERT INTO accounts (id, status) VALUES ($1, 'closed')", [`acc_x${Date.now()}`]),
    ).rejects.toMatchObject({
      code: "23514",
    });
  });

  it("Pool: an interactive transaction commits, a rolled-back one leaves nothing", async () => {
    await migrate();
    const pool = new Pool({ connectionString: url() });
    const id = `acc_tx${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
    try {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("INSERT INTO accounts (id) VALUES ($1)", [`${id}_rb`]);
        await client.query("ROLLBACK");
        await client.query("BEGIN");
        await client.query("INSERT INTO accounts (id) VALUES ($1)", [`${id}_ok`]);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      const { rows } = await pool.query("SELECT id FROM accounts WHERE id LIKE $1 ORDER BY id", [`${id}%`]);
      expect(rows).toEqual([{ id: `${id}_ok` }]);
    } finally {
      await pool.end();
    }
  });

  it("neon().transaction: a failing batch rolls back every statement", async () => {
    await migrate();
    const sql = neon(url());
    const id = `acc_batch${Date.now()}`;
    await expect(
      sql.transaction(
        [sql`INSERT INTO accounts (id) VALUES (${id})`, sql`INSERT INTO accounts (id) VALUES (${id})`],
        {
          isolationLevel: "Serializable",
        },
      ),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await sql`SELECT id FROM accounts WHERE id = ${id}`).toEqual([]);
  });

  it("concurrent connections each get their own results (PGlite serves them all on one session)", async () => {
    const pool = new Pool({ connectionString: url(), max: 12 });
    const sql = neon(url());
    const wrong: Array<[number, unknown]> = [];
    const check = (v: number, got: unknown) => {
      if (got !== v) wrong.push([v, got]);
    };
    try {
      await Promise.all(
        Array.from({ length: 24 }, async (_, worker) => {
          for (let i = 0; i < 12; i++) {
            const v = worker * 100 + i;
            if (i % 3 === 0) check(v, (await sql.query("SELECT $1::int AS v", [v]))[0]?.v);
            else if (i % 3 === 1)
              check(
                v,
                (await pool.query(`SELECT $1::int AS v, repeat('x', ${worker}) AS pad`, [v])).rows[0]?.v,
              );
            else {
              const client = await pool.connect();
              try {
                await client.query("BEGIN");
                check(v, (await client.query("SELECT $1::int AS v", [v])).rows[0]?.v);
                await client.query("COMMIT");
              } finally {
                client.release();
              }
            }
          }
        }),
      );
    } finally {
      await pool.end();
    }
    expect(wrong).toEqual([]);
  });

  it("the HTTP endpoint queues a burst beyond its connections instead of opening one per request", async () => {
    const sql = neon(url());
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) => sql.query("SELECT $1::int AS v", [i]).then((rows) => rows[0]?.v)),
    );
    expect(answers).toEqual(Array.from({ length: 150 }, (_, i) => i));
  });
});
