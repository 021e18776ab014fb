import { describe, expect, it } from "vitest";
import { consoleCall, signIn } from "../../../support/console";

// Issue 45, item 9: a console field checked by a recursive rule (a key's `scopes`) with thousands of nested
// arrays overflowed the stack and answered 500. Every body parser is iterative or bounded: 400/413/422 only.
const DEPTH = 60_000;
const deepArray = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
const deepObject = `${'{"a":'.repeat(DEPTH / 3)}1${"}".repeat(DEPTH / 3)}`;
const body = (fields: Record<string, string>) =>
  `{${Object.entries(fields)
    .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
    .join(",")}}`;

const expectRefused = async (res: Response, status: number, code: string, param?: string) => {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(status);
  const error = (JSON.parse(text) as { error: { code: string; param?: string } }).error;
  expect(error.code).toBe(code);
  if (param !== undefined) expect(error.param).toBe(param);
};

describe("issue 45 item 9: deeply nested console fields answer 400/422 as the spec says, never 500", () => {
  it('a key\'s scopes as 60,000 nested arrays → 422 invalid_value, as [["decide"]] is; nested objects → invalid_type (create and change)', async () => {
    const s = await signIn();
    for (const [deep, code] of [
      [deepArray, "invalid_value"],
      [deepObject, "invalid_type"],
    ] as const) {
      const res = await consoleCall("POST", "/v1/console/keys", {
        cookie: s.cookie,
        csrf: s.csrf,
        body: body({ name: '"k"', mode: '"test"', scopes: deep }),
      });
      await expectRefused(res, 422, code, "scopes");
    }
    const created = await consoleCall("POST", "/v1/console/keys", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { name: "k", mode: "test" },
    });
    const { id } = (await created.json()) as { id: string };
    const res = await consoleCall("PATCH", `/v1/console/keys/${id}`, {
      cookie: s.cookie,
      csrf: s.csrf,
      body: body({ scopes: deepArray }),
    });
    await expectRefused(res, 422, "invalid_value", "scopes");
  });

  it("every other console body field nested 60,000 deep → 422, never 500", async () => {
    const s = await signIn();
    const cases: [string, string, Record<string, string>][] = [
      ["POST", "/v1/console/keys", { name: deepArray, mode: '"test"' }],
      ["POST", "/v1/console/keys", { name: '"k"', mode: '"test"', rpm_limit: deepArray }],
      ["POST", "/v1/console/keys", { name: '"k"', mode: '"test"', expires_at: deepObject }],
      ["PATCH", "/v1/console/settings", { content_logging: deepObject }],
      ["PATCH", "/v1/console/settings", { content_logging: body({ enabled: deepArray }) }],
      ["POST", "/v1/console/checkout-sessions", { amount_cents: deepArray }],
      ["POST", "/v1/console/subscription/downgrade", { plan: deepArray }],
      ["POST", "/v1/console/keys", { [`x${"y".repeat(10)}`]: deepArray, name: '"k"', mode: '"test"' }],
    ];
    for (const [method, path, fields] of cases) {
      const res = await consoleCall(method, path, { cookie: s.cookie, csrf: s.csrf, body: body(fields) });
      expect(res.status, `${method} ${path} ${Object.keys(fields)}`).toBe(422);
    }
    for (const [path, fields] of [
      ["/v1/console/auth/codes", { email: deepArray }],
      ["/v1/console/sessions", { email: '"a@b.co"', code: deepObject }],
      ["/v1/console/auth/idp/token", { id_token: deepArray }],
    ] as const) {
      const res = await consoleCall("POST", path, { body: body(fields) });
      expect(res.status, path).toBe(422);
    }
  });

  it("a whole body that is 60,000 nested arrays → 422 invalid_type on every console body route", async () => {
    const s = await signIn();
    for (const [method, path] of [
      ["POST", "/v1/console/keys"],
      ["PATCH", "/v1/console/settings"],
      ["POST", "/v1/console/auth/codes"],
      ["POST", "/v1/console/sessions"],
    ]) {
      const res = await consoleCall(method!, path!, { cookie: s.cookie, csrf: s.csrf, body: deepArray });
      await expectRefused(res, 422, "invalid_type");
    }
  });
});
