import type { MiddlewareHandler } from "hono";
import { MaintenanceSwitch } from "./accounts/maintenance";
import { httpEmailSender } from "./clients/email";
import { Engine } from "./clients/engine";
import { oidcProvider } from "./clients/idp";
import { stripeClient } from "./clients/stripe";
import type { AppEnv } from "./context/app-env";
import type { Services, ServicesFactory } from "./context/services";
import { CalibrationLookup } from "./decide/calibration";
import type { Env } from "./env";
import { ledgerStub } from "./ledger/stub";
import { AddressLimiter } from "./limits/address-limits";
import { CheckoutLimiter } from "./limits/checkout-limits";
import { KeyRateLimiter } from "./limits/key-limits";
import { SignInLimiter } from "./limits/sign-in-limits";
import { AdmissionStore } from "./stores/admission";
import { database } from "./stores/db";
import { cachedPostgresKeyStore } from "./stores/keys";
import { redisAccess } from "./stores/redis";
import { refundIntentLog } from "./stores/refund-intents";
import { usageLog } from "./stores/usage";

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
    admission: new AdmissionStore(redisAccess(env, "plain")),
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
