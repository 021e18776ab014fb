/**
 * Bodies of the read routes (spec: Key object, Balance, usage and models, Plan list). The SDK passes every
 * field the API sends through. Written out here so that the published package needs nothing else; the
 * unit tier checks them equal to the API's wire schemas (`schema/`), so they cannot drift.
 */

/** The limits of a model version (spec: Limits → "Model limits reported by GET /v1/models"). */
export interface ModelLimits {
  max_state_tokens: number;
  max_question_tokens: number;
  max_total_tokens: number;
  max_questions: number;
  max_options: number;
  max_levels: number;
  exact_option_probabilities: number;
}

/** Currency code → value: EUR, USD, GBP and INR always, more may appear. */
export type ByCurrency<T> = { EUR: T; USD: T; GBP: T; INR: T; [currency: string]: T };

/** A plan's price in one currency, minor units excluding VAT. */
export interface PlanPrice {
  price_cents: number;
  reset_price_cents: number;
}

/** One plan of GET /v1/plans. */
export interface Plan {
  /** `base`, `hot` or `fierce`; new plans may appear. */
  id: string;
  object: "plan";
  name: string;
  price_cents: number;
  currency: "EUR";
  interval: "month";
  included_multiple: number;
  week_allowance_tokens: number;
  effective_unit_price_micro_cents: number;
  reset_price_cents: number;
  /** Null: no seat limit. */
  seats_total: number | null;
  seats_taken: number;
  seats_left: number | null;
  available: boolean;
  prices: ByCurrency<PlanPrice>;
}

/** A top-up pack: EUR credit in euro cents, and its price per currency. */
export interface TopUpPack {
  credit_cents: number;
  prices: ByCurrency<number>;
}

/** GET /v1/plans. */
export interface PlanList {
  object: "list";
  standard_unit_price_micro_cents: number;
  /** Cheapest first. */
  data: Plan[];
  /** Checkout currencies, EUR first. */
  currencies: string[];
  /** Smallest first. */
  top_up_packs: TopUpPack[];
}

/** One UTC bucket of usage; empty buckets are present with zeros. */
export interface UsagePoint {
  start: string;
  end: string;
  requests: number;
  input_tokens: number;
  charge_micro_cents: number;
  gpu_requests: number;
  fallback_requests: number;
  error_requests: number;
}

/** One key's buckets. */
export interface KeyUsage {
  object: "key_usage";
  key_id: string;
  points: UsagePoint[];
}

/** GET /v1/usage. */
export interface UsageReport {
  object: "usage";
  start: string;
  end: string;
  granularity: "day" | "hour";
  /** The `key_id` filter, or null for every key. */
  key_id: string | null;
  data: KeyUsage[];
}

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
