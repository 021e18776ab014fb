import type { Services } from "../context/services";
import { ApiError } from "../errors";
import { type AccountRow, getAccount } from "../stores/accounts";
import { orMaintenance } from "./unavailable";

/** The signed-in session's account row (a session outliving its account is an invalid session). */
export async function currentAccount(deps: Pick<Services, "db">, accountId: string): Promise<AccountRow> {
  const account = await orMaintenance("accounts", () => getAccount(deps.db, accountId));
  if (!account) throw new ApiError("invalid_session", { message: "Sign in to the console." });
  return account;
}
