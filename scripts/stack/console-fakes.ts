import { randomBytes } from "node:crypto";
import { startFakeEmail } from "./fake-email";
import { startFakeIdp } from "./fake-idp";

/** The console's Worker bindings and the fakes behind them (what `npm start` adds to the stack). */
export interface ConsoleStack {
  bindings: Record<string, string>;
  /** Inbox of the fake e-mail API (undefined when EMAIL_API_KEY names a real provider). */
  emailUrl?: string;
  /** The fake identity provider's issuer (undefined when IDP_ISSUER names a real one). */
  idpUrl?: string;
  stop(): Promise<void>;
}

function copyVars(from: NodeJS.ProcessEnv, to: Record<string, string>, names: string[]): void {
  for (const k of names) if (from[k]) to[k] = from[k];
}

/**
 * CONSOLE_SECRET (random per start unless set), the e-mail API (the capturing fake unless EMAIL_API_KEY is set)
 * and the identity provider (the fake with real RS256 keys unless IDP_ISSUER is set).
 */
export async function startConsoleFakes(env: NodeJS.ProcessEnv = process.env): Promise<ConsoleStack> {
  const stops: Array<() => Promise<void>> = [];
  const bindings: Record<string, string> = {
    CONSOLE_SECRET: env.CONSOLE_SECRET || randomBytes(32).toString("base64url"),
  };
  let emailUrl: string | undefined;
  let idpUrl: string | undefined;
  if (env.EMAIL_API_KEY) {
    copyVars(env, bindings, ["EMAIL_API_URL", "EMAIL_API_KEY", "EMAIL_FROM"]);
  } else {
    const email = await startFakeEmail();
    stops.push(email.close);
    emailUrl = email.url;
    Object.assign(bindings, {
      EMAIL_API_URL: email.url,
      EMAIL_API_KEY: email.apiKey,
      EMAIL_FROM: "svc <console@svc.local>",
    });
  }
  if (env.IDP_ISSUER) {
    copyVars(env, bindings, [
      "IDP_ISSUER",
      "IDP_JWKS_URL",
      "IDP_CLIENT_IDS",
      "IDP_AUTHORIZE_URL",
      "IDP_TOKEN_URL",
      "IDP_CLIENT_SECRET",
    ]);
  } else {
    const idp = await startFakeIdp();
    stops.push(idp.close);
    idpUrl = idp.url;
    Object.assign(bindings, {
      IDP_ISSUER: idp.issuer,
      IDP_JWKS_URL: idp.jwksUrl,
      IDP_CLIENT_IDS: idp.clientId,
      IDP_AUTHORIZE_URL: idp.authorizeUrl,
      IDP_TOKEN_URL: idp.tokenUrl,
    });
  }
  return {
    bindings,
    emailUrl,
    idpUrl,
    stop: async () => {
      for (const s of stops.reverse()) await s();
    },
  };
}
