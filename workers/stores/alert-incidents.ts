import type { Database } from "./db";
import type { RedisAccess } from "./redis";

/** One incident of an alert instance (times in ms since the epoch; null: not yet). */
export interface Incident {
  /** Postgres row id; absent before the first save (and in Redis, where the key is the id). */
  id?: string;
  key: string;
  alert: string;
  summary: string;
  detail: string;
  pendingSince: number;
  openedAt: number | null;
  lastSeenAt: number;
  resolvedAt: number | null;
  openSentAt: number | null;
  resolveSentAt: number | null;
}

/** Where incidents are kept: Postgres for every alert but Postgres's own, which Redis keeps. */
export interface IncidentStore {
  /** The unresolved incidents of `alert` (pending or open). */
  unresolved(alert: string): Promise<Incident[]>;
  /** Inserts (no id) or updates the incident; returns it with its id. */
  save(incident: Incident): Promise<Incident>;
  /** Forgets a pending incident whose condition cleared before it opened. */
  remove(incident: Incident): Promise<void>;
  /** Incidents with a notification still to send: opened and not announced, or resolved and not announced. */
  unsent(): Promise<Incident[]>;
}

const ms = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const ts = (v: number | null): string | null => (v === null ? null : new Date(v).toISOString());

const COLUMNS = `id::text AS id, key, alert, summary, detail,
  extract(epoch FROM pending_since) * 1000 AS pending_since, extract(epoch FROM opened_at) * 1000 AS opened_at,
  extract(epoch FROM last_seen_at) * 1000 AS last_seen_at, extract(epoch FROM resolved_at) * 1000 AS resolved_at,
  extract(epoch FROM open_sent_at) * 1000 AS open_sent_at,
  extract(epoch FROM resolve_sent_at) * 1000 AS resolve_sent_at`;

function fromRow(r: Record<string, unknown>): Incident {
  return {
    id: String(r.id),
    key: String(r.key),
    alert: String(r.alert),
    summary: String(r.summary),
    detail: String(r.detail),
    pendingSince: Math.round(Number(r.pending_since)),
    openedAt: ms(r.opened_at) === null ? null : Math.round(Number(r.opened_at)),
    lastSeenAt: Math.round(Number(r.last_seen_at)),
    resolvedAt: ms(r.resolved_at) === null ? null : Math.round(Number(r.resolved_at)),
    openSentAt: ms(r.open_sent_at) === null ? null : Math.round(Number(r.open_sent_at)),
    resolveSentAt: ms(r.resolve_sent_at) === null ? null : Math.round(Number(r.resolve_sent_at)),
  };
}

/** Incidents in `alert_incidents` (migration 0017). */
export function postgresIncidents(db: Database): IncidentStore {
  return {
    async unresolved(alert) {
      const rows = (await db
        .sql()
        .query(`SELECT ${COLUMNS} FROM alert_incidents WHERE alert = $1 AND resolved_at IS NULL`, [
          alert,
        ])) as Record<string, unknown>[];
      return rows.map(fromRow);
    },
    async save(i) {
      const values = [
        i.key,
        i.alert,
        i.summary,
        i.detail,
        ts(i.pendingSince),
        ts(i.openedAt),
        ts(i.lastSeenAt),
        ts(i.resolvedAt),
        ts(i.openSentAt),
        ts(i.resolveSentAt),
      ];
      if (i.id === undefined) {
        const rows = (await db.sql().query(
          `INSERT INTO alert_incidents (key, alert, summary, detail, pending_since, opened_at, last_seen_at,
             resolved_at, open_sent_at, resolve_sent_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           RETURNING id::text AS id`,
          values,
        )) as { id: string }[];
        return { ...i, id: rows[0]?.id };
      }
      await db.sql().query(
        `UPDATE alert_incidents SET key = $1, alert = $2, summary = $3, detail = $4, pending_since = $5,
           opened_at = $6, last_seen_at = $7, resolved_at = $8, open_sent_at = $9, resolve_sent_at = $10
         WHERE id = $11`,
        [...values, i.id],
      );
      return i;
    },
    async remove(i) {
      if (i.id !== undefined) await db.sql().query("DELETE FROM alert_incidents WHERE id = $1", [i.id]);
    },
    async unsent() {
      const rows = (await db.sql().query(
        `SELECT ${COLUMNS} FROM alert_incidents
         WHERE (opened_at IS NOT NULL AND open_sent_at IS NULL)
            OR (resolved_at IS NOT NULL AND opened_at IS NOT NULL AND resolve_sent_at IS NULL)
         ORDER BY id LIMIT 50`,
      )) as Record<string, unknown>[];
      return rows.map(fromRow);
    },
  };
}

/** The most recent incidents, unresolved first (GET /internal/alerts). */
export async function recentIncidents(db: Database, limit: number): Promise<Incident[]> {
  const rows = (await db
    .sql()
    .query(`SELECT ${COLUMNS} FROM alert_incidents ORDER BY (resolved_at IS NULL) DESC, id DESC LIMIT $1`, [
      limit,
    ])) as Record<string, unknown>[];
  return rows.map(fromRow);
}

const REDIS_KEY = "alerts:incidents:v1";

/**
 * Incidents in one Redis hash (field = the incident's key): where the Postgres-unreachable alert is kept,
 * since Postgres cannot keep its own outage. A resolved incident whose resolution was sent is deleted.
 */
export function redisIncidents(redis: RedisAccess): IncidentStore {
  const all = async (): Promise<Incident[]> => {
    const h = await redis.run((r) => r.hgetall<Record<string, Incident>>(REDIS_KEY));
    return Object.values(h ?? {}).map((v) => (typeof v === "string" ? (JSON.parse(v) as Incident) : v));
  };
  return {
    async unresolved(alert) {
      return (await all()).filter((i) => i.alert === alert && i.resolvedAt === null);
    },
    async save(i) {
      const saved = { ...i, id: i.key };
      if (saved.resolvedAt !== null && (saved.resolveSentAt !== null || saved.openedAt === null))
        await redis.run((r) => r.hdel(REDIS_KEY, i.key));
      else await redis.run((r) => r.hset(REDIS_KEY, { [i.key]: JSON.stringify(saved) }));
      return saved;
    },
    async remove(i) {
      await redis.run((r) => r.hdel(REDIS_KEY, i.key));
    },
    async unsent() {
      return (await all()).filter(
        (i) =>
          (i.openedAt !== null && i.openSentAt === null) ||
          (i.resolvedAt !== null && i.openedAt !== null && i.resolveSentAt === null),
      );
    },
  };
}
