/**
 * Bodies of the read routes (spec: Key object, Balance, usage and models, Plan list). The SDK passes every
 * field the API sends through.
 */

import type { ModelLimits } from "../../schema/models.js";
import type { PlanList } from "../../schema/plan-list.js";
import type { UsageReport } from "../../schema/usage.js";

// The shapes the API's own wire schemas give (type-only: the SDK does not load zod).
export type { ModelLimits, PlanList, UsageReport };

/** One entry of GET /v1/models. */
export interface Model extends ModelLimits {
  object: "model";
  /** Exact version: `svc-N.N.N` (GPU) or `svc-fallback-N.N.N` (fallback). */
  id: string;
  /** The alias that resolves to this version, or null. */
  alias: string | null;
  served_by: "gpu" | "fallback";
  status: "active" | "retired";
  calibration: string;
}

/** A list body. */
export interface List<T> {
  object: "list";
  data: T[];
}

/** GET /v1/key: the calling key (never its secret). */
export interface KeyObject {
  object: "key";
  id: string;
  prefix: string;
  mode: "live" | "test";
  scopes: Array<"decide" | "usage:read" | "balance:read">;
  account_id: string;
  created: number;
}

/** GET /v1/balance. */
export interface Balance {
  object: "balance";
  account_id: string;
  balance_micro_cents: number;
  balance_eur: string;
  tier: "t1" | "t2" | "t3";
  unit_price_micro_cents: number;
  month_to_date_tokens: number;
  next_tier_at_tokens: number | null;
  [field: string]: unknown;
}

/** Query of GET /v1/usage: dates `YYYY-MM-DD` (or date-times for hours). */
export interface UsageQuery {
  start: string;
  end?: string;
  granularity?: "day" | "hour";
  key_id?: string;
}

/** GET /v1/openapi.json: the OpenAPI 3.1 document (only the parts the SDK reads are typed). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  [field: string]: unknown;
}

/** One operation of the document. */
export interface OpenApiOperation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
  [field: string]: unknown;
}
