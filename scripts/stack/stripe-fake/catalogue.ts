import { randomBytes } from "node:crypto";
import type { FormValue } from "./form";
import { stripeId } from "./objects";
import { createProduct, type ScheduleWorld, StripeRequestError } from "./schedules";

/** A webhook endpoint as Stripe answers it; `secret` only in the answer that created it. */
interface FakeEndpoint {
  id: string;
  object: "webhook_endpoint";
  url: string;
  enabled_events: string[];
  status: "enabled";
  description: string | null;
  secret?: string;
}

/** Products, prices with lookup keys and webhook endpoints: what `npm run stripe:setup` manages. */
export interface CatalogueWorld extends ScheduleWorld {
  endpoints: Map<string, FakeEndpoint>;
}

type Priced = {
  id: string;
  active: boolean;
  lookup_key?: string | null;
  metadata?: Record<string, string>;
} & Record<string, unknown>;

const list = (url: string, data: unknown[]) => ({ object: "list", url, has_more: false, data });
const strings = (v: FormValue | undefined): string[] =>
  typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
const stringMap = (v: FormValue | undefined): Record<string, string> =>
  v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"))
    : {};

/**
 * The fake's catalogue routes (undefined: not one of them): GET/POST /v1/products/{id}, GET/POST /v1/prices
 * (lookup_keys, transfer_lookup_key), POST /v1/prices/{id}, GET/POST /v1/webhook_endpoints(/{id}).
 */
export function catalogueApi(
  w: CatalogueWorld,
  method: string,
  resource: string | undefined,
  id: string | undefined,
  params: Record<string, FormValue>,
): unknown {
  if (resource === "products" && id) {
    const p = w.products.get(id);
    if (!p) throw new StripeRequestError(`No such product: '${id}'`, "id", "resource_missing");
    if (method === "POST") {
      if (typeof params.name === "string") p.name = params.name;
      Object.assign(p.metadata, stringMap(params.metadata));
    }
    return p;
  }
  if (resource === "products" && method === "GET") return list("/v1/products", [...w.products.values()]);
  if (resource === "products" && method === "POST") return createProduct(w, params);
  const prices = w.prices as unknown as Map<string, Priced>;
  if (resource === "prices" && !id && method === "GET") {
    const keys = strings(params.lookup_keys);
    const active = params.active === undefined ? undefined : params.active === "true";
    const data = [...prices.values()].filter(
      (p) =>
        (!keys.length || (p.lookup_key != null && keys.includes(p.lookup_key))) &&
        (active === undefined || p.active === active),
    );
    return list("/v1/prices", data);
  }
  if (resource === "prices" && !id && method === "POST") {
    const product = String(params.product ?? "");
    if (!w.products.has(product))
      throw new StripeRequestError(`No such product: '${product}'`, "product", "resource_missing");
    const lookup = typeof params.lookup_key === "string" ? params.lookup_key : null;
    const holder = lookup ? [...prices.values()].find((p) => p.lookup_key === lookup) : undefined;
    if (holder && params.transfer_lookup_key !== "true")
      throw new StripeRequestError(`A price (\`${holder.id}\`) already uses that lookup key.`, "lookup_key");
    if (holder) holder.lookup_key = null;
    const recurring = stringMap(params.recurring);
    const price: Priced = {
      id: stripeId("price"),
      object: "price",
      active: true,
      currency: String(params.currency ?? "").toLowerCase(),
      product,
      unit_amount: Number(params.unit_amount),
      recurring: recurring.interval
        ? { interval: recurring.interval, interval_count: Number(recurring.interval_count ?? 1) }
        : null,
      type: recurring.interval ? "recurring" : "one_time",
      tax_behavior: String(params.tax_behavior ?? "unspecified"),
      lookup_key: lookup,
      metadata: stringMap(params.metadata),
    };
    prices.set(price.id, price);
    return price;
  }
  if (resource === "prices" && id && method === "POST") {
    const p = prices.get(id);
    if (!p) throw new StripeRequestError(`No such price: '${id}'`, "id", "resource_missing");
    if (typeof params.active === "string") p.active = params.active === "true";
    return p;
  }
  if (resource === "webhook_endpoints" && !id && method === "GET")
    return list(
      "/v1/webhook_endpoints",
      [...w.endpoints.values()].map(({ secret: _, ...e }) => e),
    );
  if (resource === "webhook_endpoints" && !id && method === "POST") {
    const e: FakeEndpoint = {
      id: stripeId("we"),
      object: "webhook_endpoint",
      url: String(params.url ?? ""),
      enabled_events: strings(params.enabled_events),
      status: "enabled",
      description: typeof params.description === "string" ? params.description : null,
      secret: `whsec_${randomBytes(24).toString("base64url")}`,
    };
    w.endpoints.set(e.id, e);
    return e;
  }
  if (resource === "webhook_endpoints" && id && method === "POST") {
    const e = w.endpoints.get(id);
    if (!e) throw new StripeRequestError(`No such webhook endpoint: '${id}'`, "id", "resource_missing");
    if (params.enabled_events !== undefined) e.enabled_events = strings(params.enabled_events);
    if (typeof params.url === "string") e.url = params.url;
    const { secret: _, ...shown } = e;
    return shown;
  }
  return undefined;
}
