import type { AccountRow } from "../stores/accounts";
import type { KeyRecord } from "../stores/keys";

/**
 * The caller the console playground decides as: a test-mode caller of the account, so calls are free, GPU
 * only, and take from the account's daily test quota shared with its test keys (spec). Its id
 * `playground_<account id>` names it in usage events and its own rpm / tpm windows.
 */
export function playgroundCaller(account: AccountRow): KeyRecord {
  return {
    id: `playground_${account.id}`,
    accountId: account.id,
    mode: "test",
    prefix: "console",
    scopes: ["decide"],
    name: "console playground",
    created: Math.floor(account.createdAt / 1000),
    expiresAt: null,
    revokedAt: null,
    rpmLimit: null,
    tpmLimit: null,
    account: {
      status: account.status,
      rpmLimit: account.rpmLimit,
      tpmLimit: account.tpmLimit,
      contentLogDays: account.contentLogDays,
      calibrationsGeneration: account.calibrationsGeneration,
      reviewRulesGeneration: account.reviewRulesGeneration,
    },
  };
}
