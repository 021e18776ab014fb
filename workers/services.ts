import type { MiddlewareHandler } from "hono";
import type Stripe from "stripe";
import { MaintenanceSwitch } from "./accounts/maintenance";
import { CalibrationLookup } from "./calibrations/lookup";
import { type EmailSender, httpEmailSender } from "./clients/email";
import { Engine } from "./clients/engine";
import { type IdentityProvider, oidcProvider } from "./clients/idp";
import { stripeClient } from "./clients/stripe";
import type { Env } from "./env";
import { type Ledger, ledgerStub } from "./ledger/stub";
import { AddressLimiter } from "./limits/address-limits";
import { CheckoutLimiter } from "./limits/checkout-limits";
import { KeyRateLimiter } from "./limits/key-limits";
import { SignInLimiter } from "./limits/sign-in-limits";
import type { AppEnv } from "./middleware/context";
import { AdmissionStore } from "./stores/admission";
import { type Database, database } from "./stores/db";
import { cachedPostgresKeyStore, type KeyStore } from "./stores/keys";
import { redisAccess } from "./stores/redis";
import { type RefundIntentLog, refundIntentLog } from "./stores/refund-intents";
import { type UsageLog, usageLog } from "./stores/usage";

/** Everything a handler calls beyond its own request: stores, limiters, the ledger, the serving paths. */
export interface Services {
  db: Database;
  /** API keys by secret hash, behind the ≤1 s isolate cache. */
  keys: KeyStore;
  /** The ledger Durable Object of an account. */
  ledger: (accountId: string) => Ledger;
  /** Reads the key's rate-limit counts (headers of routes that take nothing). */
  limits: KeyRateLimiter;
  /** Limits keyed by client address (the public plan list). */
  addressLimits: AddressLimiter;
  /** Decide's idempotency records and limits, one Redis round trip in and one out. */
  admission: AdmissionStore;
  usage: UsageLog;
  refundIntents: RefundIntentLog;
  /** GPU pool (health kept across requests) and hosted fallback. */
  engine: Engine;
  /** The account's own calibrations a decide answers with (cached by the account's generation). */
  calibrations: CalibrationLookup;
  /** Console: the e-mail API, the identity provider (key set cached), sign-in limits, maintenance switch. */
  email: EmailSender;
  idp: IdentityProvider;
  signInLimits: SignInLimiter;
  maintenance: MaintenanceSwitch;
  /** The Stripe SDK (over fetch; the local fake when STRIPE_API_URL is set); null when not configured. */
  stripe: Stripe | null;
  /** Plan checkouts an account may open an hour. */
  checkoutLimits: CheckoutLimiter;
}

/** Builds an env's services from its (already validated) variables. */
export function buildServices(env: Env): Services {
  const redis = redisAccess(env);
  const db = database(env);
  return {
    db,
    keys: cachedPostgresKeyStore(env),
    ledger: (accountId) => ledgerStub(env, accountId),
    limits: new KeyRateLimiter(redis),
    addressLimits: new AddressLimiter(redis),
    admission: new AdmissionStore(redis),
    usage: usageLog(env),
    refundIntents: refundIntentLog(env),
    engine: Engine.fromEnv(env),
    calibrations: new CalibrationLookup(db),
    email: httpEmailSender(env),
    idp: oidcProvider(env),
    signInLimits: new SignInLimiter(redis),
    maintenance: new MaintenanceSwitch(db),
    stripe: stripeClient(env),
    checkoutLimits: new CheckoutLimiter(redis),
  };
}

/** How services are made for an env: the real ones, or a test's, through the same seam. */
export type ServicesFactory = (env: Env) => Services;

/**
 * Puts the services on the context (`c.var.keys`, `c.var.ledger(accountId)`, …) for every handler after it,
 * built once per env object, i.e. once per isolate: the key cache and the GPU pool's health persist.
 */
export function provideServices(factory: ServicesFactory = buildServices): MiddlewareHandler<AppEnv> {
  const built = new WeakMap<Env, Services>();
  return async function provideServicesMiddleware(c, next) {
    let services = built.get(c.env);
    if (!services) {
      services = factory(c.env);
      built.set(c.env, services);
    }
    for (const name of Object.keys(services) as (keyof Services)[]) c.set(name, services[name] as never);
    await next();
  };
}
