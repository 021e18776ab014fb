import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Runs SQL on ONE connection (BEGIN/COMMIT must reach the same session); multi-statement text allowed without params. */
export type QueryFn = (sql: string, params?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

/** The repository's `migrations/` directory. */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "migrations");

const FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** Numbered migration files (`0001_name.sql`) in order; throws on a duplicate number. */
export function listMigrations(dir = MIGRATIONS_DIR): Array<{ version: string; name: string; sql: string }> {
  const files = readdirSync(dir)
    .filter((f) => FILE.test(f))
    .sort();
  const seen = new Set<string>();
  return files.map((name) => {
    const version = name.slice(0, 4);
    if (seen.has(version)) throw new Error(`two migrations numbered ${version} in ${dir}`);
    seen.add(version);
    return { version, name, sql: readFileSync(join(dir, name), "utf8") };
  });
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its own transaction, in order.
 * Idempotent and safe against a concurrent runner (the table is locked while one file applies).
 * Returns the names applied now.
 */
export async function applyMigrations(query: QueryFn, dir = MIGRATIONS_DIR): Promise<string[]> {
  await query(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  const applied: string[] = [];
  for (const m of listMigrations(dir)) {
    await query("BEGIN");
    try {
      await query("LOCK TABLE schema_migrations IN EXCLUSIVE MODE");
      const done = await query("SELECT 1 FROM schema_migrations WHERE version = $1", [m.version]);
      if (done.rows.length === 0) {
        await query(m.sql);
        await query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
        applied.push(m.name);
      }
      await query("COMMIT");
    } catch (error) {
      await query("ROLLBACK").catch(() => {});
      throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return applied;
}
