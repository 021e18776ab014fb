import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context/app-env";
import { endpoint } from "../define";

/** The document's fixed parts; paths and schemas come from the route declarations. */
export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "svc decision service",
    version: "1",
    description:
      "Typed questions about a state (text or JSON) answered with calibrated probabilities, billed per input token. Errors list their codes per status from the one catalogue.",
  },
} as const;

/** Registers the security schemes the declarations name (`bearer` API keys, the operator's `admin`, console sessions). */
export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key: `svc_live_…` or `svc_test_…`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "admin", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: "__Host-svc_session",
    description: "Console session cookie; state-changing routes also need `x-svc-csrf`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "appSession", {
    type: "http",
    scheme: "bearer",
    description: "App session `svc_ses_…` from `createIdpSession` (no cookie, no CSRF).",
  });
}

/** GET /v1/openapi.json: the OpenAPI 3.1 document of every public route, generated from the declarations. */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  let doc: ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]> | undefined;
  return endpoint(
    {
      method: "get",
      path: "/v1/openapi.json",
      operationId: "getOpenApiDocument",
      summary: "This document",
      auth: "public",
      responses: { 200: { description: "OpenAPI 3.1 document." } },
      errors: [],
    },
    function getOpenApiDocument(c) {
      doc ??= app.getOpenAPI31Document(OPENAPI_INFO);
      return c.json(doc, 200);
    },
  );
}
