import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { QueryFn } from "../migrations";
import { seedAccount, seedKeys } from "./seed";

/**
 * `.local/demo.json`: the demo account and its key secrets (the database keeps only SHA-256), and the stack's
 * operator token (`ADMIN_TOKEN`, kept in `.local/admin-token` across starts) for the runbook's local commands.
 */
export interface DemoInfo {
  base_url: string;
  account_id: string;
  live_key: string;
  test_key: string;
  /** Set by startStack once it knows the token; the seed alone leaves it out. */
  admin_token?: string;
}

const DEMO_EMAIL = "demo@svc.local";
/** EUR 100 in micro-cents. */
export const DEMO_CREDIT_MICRO_CENTS = 10_000_000_000;

/**
 * Idempotent demo seed: reuses the account and keys of `previous` (the last demo.json) when the database
 * still has them, otherwise creates the account (or new keys for it). Writes nothing: see writeDemo.
 */
export async function ensureDemoAccount(
  query: QueryFn,
  previous: DemoInfo | undefined,
  baseUrl: string,
): Promise<DemoInfo> {
  const existing = await query("SELECT id FROM accounts WHERE email = $1", [DEMO_EMAIL]);
  let accountId = existing.rows[0]?.id as string | undefined;
  if (accountId && previous?.account_id === accountId) return { ...previous, base_url: baseUrl };
  let live: string;
  let test: string;
  if (accountId) {
    const keys = await seedKeys(query, accountId, [
      { mode: "live", name: "demo live" },
      { mode: "test", name: "demo test" },
    ]);
    [live, test] = [keys[0]!.secret, keys[1]!.secret];
  } else {
    const seeded = await seedAccount(query, {
      email: DEMO_EMAIL,
      keys: [
        { mode: "live", name: "demo live" },
        { mode: "test", name: "demo test" },
      ],
    });
    accountId = seeded.accountId;
    [live, test] = [seeded.keys[0]!.secret, seeded.keys[1]!.secret];
  }
  return { base_url: baseUrl, account_id: accountId, live_key: live, test_key: test };
}

/** Writes `demo.json` (owner-only: it holds key secrets). */
export function writeDemo(file: string, info: DemoInfo): void {
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

/**
 * `demo.json` exists only while a started stack is ready (a script may wait for it): at the start of a
 * start this moves a left-over one (a killed run) to `demo.last.json` and returns the last known demo,
 * whose keys the seed reuses; writeDemo writes it back once ready.
 */
export function takeDemo(file: string): DemoInfo | undefined {
  retireDemo(file);
  return readDemo(lastDemoFile(file));
}

/** On stop: `demo.json` becomes `demo.last.json` (the keys stay readable; the next start reuses them). */
export function retireDemo(file: string): void {
  if (existsSync(file)) renameSync(file, lastDemoFile(file));
}

function lastDemoFile(file: string): string {
  return join(dirname(file), "demo.last.json");
}

/**
 * Credits the demo balance through the Worker's internal route (idempotent by payment id, so every start
 * may call it). Returns a warning instead of throwing when the route is missing or refuses.
 */
export async function creditDemo(
  baseUrl: string,
  adminToken: string,
  accountId: string,
): Promise<string | null> {
  try {
    const res = await fetch(`${baseUrl}/internal/ledger/credit`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        account_id: accountId,
        amount_micro_cents: DEMO_CREDIT_MICRO_CENTS,
        payment_id: `demo-seed-${accountId}`,
      }),
    });
    if (res.ok) return null;
    return `demo credit: POST /internal/ledger/credit answered ${res.status} (${(await res.text()).slice(0, 200)}); the demo balance is not funded`;
  } catch (error) {
    return `demo credit failed: ${String(error)}`;
  }
}

function readDemo(file: string): DemoInfo | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as DemoInfo;
  } catch {
    return undefined;
  }
}
