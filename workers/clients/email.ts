import type { Env } from "../env";

/** One plain-text message. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends e-mail; throws `EmailUnavailableError` when the provider is not configured or refuses. */
export interface EmailSender {
  readonly configured: boolean;
  send(message: EmailMessage): Promise<void>;
}

/** The e-mail provider is not configured, unreachable or refused the message. */
export class EmailUnavailableError extends Error {}

/** Resend's API (https://resend.com/docs/api-reference/emails/send-email); the local fake speaks the same. */
export const DEFAULT_EMAIL_API_URL = "https://api.resend.com";

/**
 * The HTTP e-mail API client (Resend: `POST {EMAIL_API_URL}/emails`, bearer `EMAIL_API_KEY`, from
 * `EMAIL_FROM`). The message body is never logged (it carries sign-in codes).
 */
export function httpEmailSender(
  env: Pick<Env, "EMAIL_API_URL" | "EMAIL_API_KEY" | "EMAIL_FROM">,
  fetcher: typeof fetch = (input, init) => fetch(input, init),
): EmailSender {
  const base = (env.EMAIL_API_URL || DEFAULT_EMAIL_API_URL).replace(/\/$/, "");
  const key = env.EMAIL_API_KEY;
  const from = env.EMAIL_FROM;
  return {
    configured: Boolean(key && from),
    async send(message) {
      if (!key || !from) throw new EmailUnavailableError("EMAIL_API_KEY / EMAIL_FROM not set");
      let res: Response;
      try {
        res = await fetcher(`${base}/emails`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ from, to: [message.to], subject: message.subject, text: message.text }),
          signal: AbortSignal.timeout(10_000),
        });
      } catch (err) {
        throw new EmailUnavailableError(
          `e-mail API unreachable: ${err instanceof Error ? err.name : "error"}`,
        );
      }
      await res.body?.cancel();
      if (!res.ok) throw new EmailUnavailableError(`e-mail API answered ${res.status}`);
    },
  };
}
