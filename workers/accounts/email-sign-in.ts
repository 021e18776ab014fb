import { constantTimeEqual } from "../../schema/constant-time";
import { EmailUnavailableError } from "../clients/email";
import type { Services } from "../context/services";
import { ApiError } from "../errors";
import { logEvent } from "../observability/log";
import { type AccountRow, accountHasEmail, findOrCreateAccountByEmail } from "../stores/accounts";
import { type CodeTries, consumeSignInCode, countCodeTry, putSignInCode } from "../stores/sign-in-codes";
import {
  CODE_PATTERN,
  CODE_TTL_MS,
  codeHmac,
  generateCode,
  MAX_CODE_ATTEMPTS,
  MAX_CODE_TRIES_ALL_NETWORKS,
} from "./codes";
import { orMaintenance } from "./unavailable";

type Deps = Pick<Services, "db" | "email" | "signInLimits">;

/**
 * Sends a sign-in code: the network's and the address's hourly limits (429 `email_codes_per_hour`), the
 * service's budget of sign-in e-mails (429 `sign_in_emails_per_hour`; part of it kept for addresses that
 * already have an account), a fresh code stored only as its HMAC
 * (the address's earlier codes stay valid), then the e-mail. Returns the code's expiry.
 */
export async function sendSignInCode(
  deps: Deps,
  secret: string,
  email: string,
  network: string,
  now: number = Date.now(),
): Promise<Date> {
  if (!deps.email.configured)
    throw new ApiError("maintenance", { message: "E-mail sign-in is not configured." });
  const hasAccount = await orMaintenance("accounts", () => accountHasEmail(deps.db, email));
  await orMaintenance("sign-in limits", () => deps.signInLimits.emailCode(email, network, hasAccount));
  const code = generateCode();
  const expiresAt = new Date(now + CODE_TTL_MS);
  await orMaintenance("sign-in codes", async () =>
    putSignInCode(deps.db, email, await codeHmac(secret, email, code), expiresAt),
  );
  try {
    await deps.email.send({
      to: email,
      subject: `Your svc sign-in code: ${code}`,
      text: `Your svc console sign-in code is ${code}.\n\nIt expires in ${CODE_TTL_MS / 60_000} minutes and works once. If you did not ask for it, ignore this message.\n`,
    });
  } catch (err) {
    if (!(err instanceof EmailUnavailableError)) throw err;
    logEvent("error", "sign_in_email_not_sent", { error: err.message });
    throw new ApiError("maintenance", { message: "E-mail is temporarily unavailable." });
  }
  return expiresAt;
}

/**
 * Checks a code and signs the address in (its account, created when new). First the client network's try
 * limit (429 `sign_in_tries_per_network`); then every try counts against each live code of the address for
 * the asking network, atomically: a wrong or expired code → 401 `invalid_code` (a code's 5th wrong try from a
 * network too); a code tried more than 5 times from the network is unusable there → 401
 * `code_attempts_exceeded`, even with the right digits, while other networks (its owner's) keep their tries;
 * but a code tried more than 10 times from all networks together is dead for every network (issue 50: many
 * networks do not buy many guesses). A right code works once.
 */
export async function verifySignInCode(
  deps: Pick<Services, "db" | "signInLimits">,
  secret: string,
  email: string,
  code: string,
  network: string,
): Promise<AccountRow> {
  const wrong = () => new ApiError("invalid_code", { message: "The code is wrong or has expired." });
  const exceeded = () =>
    new ApiError("code_attempts_exceeded", { message: "Too many wrong tries; ask for a new code." });
  await orMaintenance("sign-in limits", () => deps.signInLimits.codeTry(network));
  const codes = await orMaintenance("sign-in codes", () => countCodeTry(deps.db, email, network));
  if (codes.length === 0) throw wrong();
  const wellFormed = CODE_PATTERN.test(code);
  const sent = await codeHmac(secret, email, wellFormed ? code : "-");
  const dead = (c: CodeTries) => c.tries > MAX_CODE_ATTEMPTS || c.allTries > MAX_CODE_TRIES_ALL_NETWORKS;
  let match: CodeTries | undefined;
  for (const c of codes) if (constantTimeEqual(sent, c.codeHmac) && wellFormed) match = c;
  if (!match) {
    if (codes.every(dead)) throw exceeded();
    throw wrong();
  }
  if (dead(match)) throw exceeded();
  if (!(await orMaintenance("sign-in codes", () => consumeSignInCode(deps.db, email, sent)))) throw wrong();
  await orMaintenance("sign-in limits", () => deps.signInLimits.codeTrySucceeded(network));
  const { account } = await orMaintenance("accounts", () => findOrCreateAccountByEmail(deps.db, email));
  if (account.status === "suspended")
    throw new ApiError("account_suspended", { message: "The account is suspended." });
  return account;
}
