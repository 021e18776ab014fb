import type { Database } from "./db";

/** The account's webhook endpoint. */
export interface WebhookEndpointRow {
  id: string;
  accountId: string;
  url: string;
  createdAt: number;
}

/** An event still to deliver. */
export interface DeliveryRow {
  id: string;
  batchId: string;
  type: string;
  payload: string | null;
  attempts: number;
  createdAt: number;
}

const rows = (r: unknown) => r as Record<string, unknown>[];
const ms = (v: unknown) => new Date(String(v)).getTime();

const toEndpoint = (r: Record<string, unknown>): WebhookEndpointRow => ({
  id: String(r.id),
  accountId: String(r.account_id),
  url: String(r.url),
  createdAt: ms(r.created_at),
});

export async function findWebhookEndpoint(
  db: Database,
  accountId: string,
): Promise<WebhookEndpointRow | null> {
  const r = rows(await db.sql().query("SELECT * FROM webhook_endpoints WHERE account_id = $1", [accountId]));
  return r[0] ? toEndpoint(r[0]) : null;
}

/** Sets (or replaces) the account's endpoint: a new id, so a new signing secret. */
export async function setWebhookEndpoint(
  db: Database,
  accountId: string,
  id: string,
  url: string,
): Promise<WebhookEndpointRow> {
  const r = rows(
    await db.sql().query(
      `INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET id = EXCLUDED.id, url = EXCLUDED.url, created_at = now()
       RETURNING *`,
      [accountId, id, url],
    ),
  );
  return toEndpoint(r[0]!);
}

export async function deleteWebhookEndpoint(db: Database, accountId: string): Promise<boolean> {
  const r = rows(
    await db.sql().query("DELETE FROM webhook_endpoints WHERE account_id = $1 RETURNING id", [accountId]),
  );
  return r.length > 0;
}

/** Events of the account due now, oldest first. */
export async function dueDeliveries(db: Database, accountId: string, limit: number): Promise<DeliveryRow[]> {
  const r = rows(
    await db.sql().query(
      `SELECT id, batch_id, type, payload, attempts, created_at FROM webhook_deliveries
        WHERE account_id = $1 AND delivered_at IS NULL AND given_up_at IS NULL AND next_at <= now()
        ORDER BY id LIMIT $2`,
      [accountId, limit],
    ),
  );
  return r.map((x) => ({
    id: String(x.id),
    batchId: String(x.batch_id),
    type: String(x.type),
    payload: (x.payload as string | null) ?? null,
    attempts: Number(x.attempts),
    createdAt: ms(x.created_at),
  }));
}

/** When the account's next event is due (null: nothing to deliver). */
export async function nextDeliveryAt(db: Database, accountId: string): Promise<number | null> {
  const r = rows(
    await db.sql().query(
      `SELECT min(next_at) AS at FROM webhook_deliveries
        WHERE account_id = $1 AND delivered_at IS NULL AND given_up_at IS NULL`,
      [accountId],
    ),
  );
  return r[0]?.at ? ms(r[0].at) : null;
}

/** Fixes an event's body at its first attempt (every retry sends the same bytes). */
export async function fixPayload(db: Database, id: string, payload: string): Promise<string> {
  const r = rows(
    await db
      .sql()
      .query(
        "UPDATE webhook_deliveries SET payload = coalesce(payload, $2) WHERE id = $1 RETURNING payload",
        [id, payload],
      ),
  );
  return String(r[0]?.payload ?? payload);
}

/** One attempt's outcome: delivered, or the next try (null: given up). */
export async function recordAttempt(
  db: Database,
  id: string,
  outcome:
    | { delivered: true; status: number }
    | { delivered: false; status: number | null; error: string; nextAt: number | null },
): Promise<void> {
  if (outcome.delivered)
    await db
      .sql()
      .query(
        "UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $2, last_error = NULL, delivered_at = now() WHERE id = $1",
        [id, outcome.status],
      );
  else
    await db.sql().query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $2, last_error = $3,
              next_at = coalesce($4::timestamptz, next_at), given_up_at = CASE WHEN $4::timestamptz IS NULL THEN now() END
        WHERE id = $1`,
      [
        id,
        outcome.status,
        outcome.error.slice(0, 500),
        outcome.nextAt === null ? null : new Date(outcome.nextAt).toISOString(),
      ],
    );
}
