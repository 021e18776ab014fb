import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";
import { type SeedAccountOptions, type SeededAccount, seedAccount, sqlQuery } from "./seed";

export const BASE = "http://svc.test";

/** Seeds one account through the Worker's own HTTP SQL path (real Postgres behind the Neon bridge). */
export function seed(opts: SeedAccountOptions): Promise<SeededAccount> {
  return seedAccount(sqlQuery(env), opts);
}

export function call(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(BASE + path, { method, ...init });
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** Asserts the error envelope, the `x-request-id` equality and returns the error object. */
export async function expectError(
  res: Response,
  status: number,
  code: string,
  param?: string,
): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as { error: Record<string, unknown> };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.type).toBe("string");
  expect(typeof body.error.message).toBe("string");
  if (param === undefined) expect(body.error).not.toHaveProperty("param");
  else expect(body.error.param).toBe(param);
  expect(body.error.request_id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  expect(res.headers.get("x-request-id")).toBe(body.error.request_id);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return body.error;
}

/** A schema-valid decide body. */
export const VALID_DECIDE = JSON.stringify({
  state: { ticket: "My card was charged twice" },
  questions: { topic: { type: "pick", instructions: "Topic?", options: { billing: null, other: null } } },
});
