import type Stripe from "stripe";
import type { MaintenanceSwitch } from "../accounts/maintenance";
import type { EmailSender } from "../clients/email";
import type { Engine } from "../clients/engine";
import type { IdentityProvider } from "../clients/idp";
import type { CalibrationLookup } from "../decide/calibration";
import type { Env } from "../env";
import type { Ledger } from "../ledger/stub";
import type { AddressLimiter } from "../limits/address-limits";
import type { CheckoutLimiter } from "../limits/checkout-limits";
import type { KeyRateLimiter } from "../limits/key-limits";
import type { SignInLimiter } from "../limits/sign-in-limits";
import type { AdmissionStore } from "../stores/admission";
import type { Database } from "../stores/db";
import type { KeyStore } from "../stores/keys";
import type { RefundIntentLog } from "../stores/refund-intents";
import type { UsageLog } from "../stores/usage";

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

/** How services are made for an env: the real ones, or a test's, through the same seam. */
export type ServicesFactory = (env: Env) => Services;
