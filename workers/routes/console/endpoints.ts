import type { Endpoint } from "../define";
import { suspendAccount, unsuspendAccount } from "../internal/account-status";
import { setMaintenance } from "../internal/maintenance";
import { completeIdpSignIn, startIdpSignIn } from "./auth/idp-browser";
import { createIdpSession } from "./auth/idp-token";
import { sendSignInCodeRoute } from "./auth/send-code";
import { createKey } from "./keys/create";
import { listKeys } from "./keys/list";
import { revokeKey } from "./keys/revoke";
import { updateKey } from "./keys/update";
import { listConsoleModels } from "./models/list";
import { getOverview } from "./overview/get";
import { playgroundDecide } from "./playground/decide";
import { createSession } from "./session/create";
import { deleteSession } from "./session/delete";
import { getSession } from "./session/get";
import { getSettings, updateSettings } from "./settings/settings";
import { cancelDowngradeRoute, scheduleDowngradeRoute } from "./subscription/downgrade";
import { getSubscription } from "./subscription/get";
import { getUsageBatchLines } from "./usage/batch-lines";
import { getUsageSeries } from "./usage/series";

/** The console's routes (sign-in, session, keys, overview, models, usage series, playground, settings, subscription and its downgrade) and its operator switches. */
export const CONSOLE_ENDPOINTS: readonly Endpoint[] = [
  sendSignInCodeRoute,
  createSession,
  getSession,
  deleteSession,
  createIdpSession,
  startIdpSignIn,
  completeIdpSignIn,
  listKeys,
  createKey,
  updateKey,
  revokeKey,
  getOverview,
  listConsoleModels,
  getUsageSeries,
  getUsageBatchLines,
  playgroundDecide,
  getSettings,
  updateSettings,
  getSubscription,
  scheduleDowngradeRoute,
  cancelDowngradeRoute,
  suspendAccount,
  unsuspendAccount,
  setMaintenance,
];
