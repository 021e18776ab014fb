// Test helper: insert accounts and API keys, get the secrets back.
//   Worker tier:      await seedAccount(sqlQuery(env), { keys: [{ mode: "live", scopes: ["decide"] }] })
//   Integration tier: await withStackDb((q) => seedAccount(q))   (see ./stack-db.ts)

import type { SeedQuery } from "../../scripts/stack/seed";
import type { DbEnv } from "../../workers/stores/db";
import { getSql } from "../../workers/stores/db";

export {
  ALL_SCOPES,
  type SeedAccountOptions,
  type SeededAccount,
  type SeededKey,
  type SeedKeyOptions,
  type SeedQuery,
  seedAccount,
} from "../../scripts/stack/seed";

/** A SeedQuery over the Worker's HTTP SQL path (`getSql(env).query`), usable inside workerd tests. */
export function sqlQuery(env: DbEnv): SeedQuery {
  const sql = getSql(env);
  return (text, params) => sql.query(text, params);
}
