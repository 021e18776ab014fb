import { env } from "cloudflare:test";
import { OpenAPIHono } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { ERRORS, type ErrorCode } from "../../../schema/errors";
import { createApp } from "../../../workers/app";
import type { AppEnv } from "../../../workers/context/app-env";
import { ApiError } from "../../../workers/errors";
import { errorHandler } from "../../../workers/middleware/error-handler";
import { requestId } from "../../../workers/middleware/request-id";
import { decide } from "../../../workers/routes/decide/post";
import { endpoint, mountEndpoints } from "../../../workers/routes/define";
import { call, expectError } from "../../support/worker-http";

interface ErrorEnvelopeSchema {
  properties: { error: { properties: { code: { enum: string[] } } } };
}

interface Operation {
  operationId: string;
  security: unknown[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: ErrorEnvelopeSchema }> }>;
}

async function document(): Promise<{ openapi: string; paths: Record<string, Record<string, Operation>> }> {
  const res = await call("GET", "/v1/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return res.json();
}

/** The error codes an operation's document lists, by status. */
function documentedCodes(op: Operation): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [status, r] of Object.entries(op.responses)) {
    if (Number(status) < 400) continue;
    out.set(Number(status), r.content!["application/json"]!.schema.properties.error.properties.code.enum);
  }
  return out;
}

describe("GET /v1/openapi.json: an OpenAPI 3.1 document generated from the route declarations (no key needed)", () => {
  it("lists every public operation with the spec's operation ids and auth", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as const),
    );
    expect(Object.fromEntries(ops.map(([k, op]) => [k, op.operationId]))).toMatchObject({
      "POST /v1/decide": "decide",
      "GET /v1/models": "listModels",
      "GET /v1/key": "getKey",
      "GET /v1/balance": "getBalance",
      "GET /v1/openapi.json": "getOpenApiDocument",
      "POST /v1/console/sessions": "createSession",
      "GET /v1/console/auth/idp/start": "startIdpSignIn",
      "POST /v1/console/auth/idp/token": "createIdpSession",
      "POST /v1/evaluations": "createEvaluation",
      "GET /v1/evaluations": "listEvaluations",
      "GET /v1/evaluations/{id}": "getEvaluation",
      "POST /v1/evaluations/{id}/cancel": "cancelEvaluation",
      "DELETE /v1/evaluations/{id}": "deleteEvaluation",
      "GET /v1/evaluations/{id}/items": "listEvaluationItems",
      "POST /v1/console/evaluations": "createConsoleEvaluation",
      "GET /v1/console/evaluations": "listConsoleEvaluations",
      "GET /v1/console/evaluations/{id}": "getConsoleEvaluation",
      "POST /v1/console/evaluations/{id}/cancel": "cancelConsoleEvaluation",
      "DELETE /v1/console/evaluations/{id}": "deleteConsoleEvaluation",
      "GET /v1/console/evaluations/{id}/items": "listConsoleEvaluationItems",
      "POST /v1/review-rules": "createReviewRule",
      "GET /v1/review-rules": "listReviewRules",
      "GET /v1/review-rules/{id}": "getReviewRule",
      "DELETE /v1/review-rules/{id}": "deleteReviewRule",
      "POST /v1/review-rules/{id}/next": "claimNextReview",
      "POST /v1/review-rules/{id}/evaluations": "createReviewRuleEvaluation",
      "GET /v1/reviews": "listReviews",
      "POST /v1/reviews/{id}/label": "labelReview",
      "POST /v1/reviews/{id}/skip": "skipReview",
      "POST /v1/calibrations/{id}/activate": "activateCalibration",
      "POST /v1/console/review-rules": "createConsoleReviewRule",
      "GET /v1/console/reviews": "listConsoleReviews",
      "POST /v1/console/reviews/{id}/label": "labelConsoleReview",
      "POST /v1/console/calibrations/{id}/activate": "activateConsoleCalibration",
    });
    expect(ops.map(([k]) => k)).not.toContain("POST /internal/accounts/{id}/suspend");
    expect(doc.paths["/v1/console/keys"]!.post!.security).toEqual([{ session: [] }, { appSession: [] }]);
    expect(doc.paths["/v1/console/auth/idp/token"]!.post!.security).toEqual([]);
    expect(documentedCodes(doc.paths["/v1/console/keys"]!.post!).get(403)).toEqual([
      "account_suspended",
      "csrf_failed",
    ]);
    expect(ops.map(([k]) => k)).not.toContain("POST /internal/ledger/credit");
    expect(doc.paths["/v1/openapi.json"]!.get!.security).toEqual([]);
    expect(doc.paths["/v1/decide"]!.post!.security).toEqual([{ bearer: [] }]);
  });

  it("each error response lists its codes from the one catalogue, grouped by the catalogue's status", async () => {
    const doc = await document();
    for (const methods of Object.values(doc.paths))
      for (const op of Object.values(methods))
        for (const [status, codes] of documentedCodes(op))
          for (const code of codes) expect(ERRORS[code as ErrorCode].status, code).toBe(status);
    const decideCodes = [...documentedCodes(doc.paths["/v1/decide"]!.post!).values()].flat().sort();
    expect(decideCodes).toEqual([...decide.codes].sort());
    // The spec's error list of POST /v1/decide: 400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 503.
    expect([...documentedCodes(doc.paths["/v1/decide"]!.post!).keys()].sort()).toEqual([
      400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 503,
    ]);
  });

  it("POST /v1/decide documents its body (DecideRequest) though it is parsed by the strict parser", async () => {
    const doc = await document();
    const schema = doc.paths["/v1/decide"]!.post!.requestBody!.content["application/json"]!.schema as {
      required: string[];
    };
    expect(schema.required).toEqual(expect.arrayContaining(["state", "questions"]));
  });
});

describe("a route raising a code its declaration does not list fails in the test tiers (STRICT_ERROR_DECLARATIONS)", () => {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId());
  const declared = mountEndpoints(app, [
    endpoint(
      {
        method: "get",
        path: "/v1/probe",
        operationId: "probe",
        auth: "public",
        responses: {},
        errors: ["no_capacity"],
      },
      (c) => {
        throw new ApiError(c.req.query("code") as ErrorCode);
      },
    ),
  ]);
  app.onError(errorHandler(declared));

  it("a declared code is answered as raised", async () => {
    const res = await app.request("/v1/probe?code=no_capacity", {}, env);
    await expectError(res, 503, "no_capacity");
    expect(res.headers.get("retry-after")).toBe(String(ERRORS.no_capacity.retryAfter));
  });

  it("an undeclared code → 500 internal_error and a log line naming route and code", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await app.request("/v1/probe?code=plan_sold_out", {}, env);
    await expectError(res, 500, "internal_error");
    expect(JSON.parse(String(log.mock.calls[0]?.[0]))).toMatchObject({
      level: "error",
      event: "undeclared_error_code",
      route: "GET /v1/probe",
      code: "plan_sold_out",
    });
    log.mockRestore();
  });

  it("the real app declares the routing codes nowhere but answers them from the router", async () => {
    const res = await createApp().request("/v1/nothing-here", {}, env);
    await expectError(res, 404, "route_not_found");
  });
});

describe("the usage routes document their query parameters (found by schemathesis)", () => {
  it.each([
    ["/v1/usage", ["start", "end", "granularity", "key_id"]],
    ["/v1/console/usage/series", ["start", "end", "granularity", "group_by"]],
    ["/v1/console/usage/batch-lines", ["start", "end", "granularity"]],
  ])("%s", async (path, names) => {
    const doc = (await (await call("GET", "/v1/openapi.json")).json()) as {
      paths: Record<string, { get: { parameters: { name: string; in: string; required?: boolean }[] } }>;
    };
    const params = doc.paths[path]!.get.parameters.filter((p) => p.in === "query");
    expect(params.map((p) => p.name)).toEqual(names);
    expect(params.find((p) => p.name === "start")!.required).toBe(true);
  });
});
