import { OpenAPIHono } from "@hono/zod-openapi";
import { registerAppFactory } from "./canary/app-factory";
import type { AppEnv } from "./context/app-env";
import type { ServicesFactory } from "./context/services";
import { envCheck } from "./middleware/env-check";
import { errorHandler } from "./middleware/error-handler";
import { publicCors } from "./middleware/public-cors";
import { requestId } from "./middleware/request-id";
import { requestLog } from "./middleware/request-log";
import { routeNotFound } from "./middleware/routing";
import { strictTransportSecurity } from "./middleware/strict-transport-security";
import { rootRedirect } from "./pages/root-redirect";
import { consolePages } from "./pages/routes";
import { getBalance } from "./routes/balance/get";
import { BATCH_ENDPOINTS } from "./routes/batches/endpoints";
import { CALIBRATION_ENDPOINTS } from "./routes/calibrations/endpoints";
import { createAllowanceReset } from "./routes/console/allowance-resets/post";
import { createCheckoutSession } from "./routes/console/checkout-sessions/post";
import { CONSOLE_ENDPOINTS } from "./routes/console/endpoints";
import { listPlans } from "./routes/console/plans/list";
import { createSubscriptionCheckoutRoute } from "./routes/console/subscription-checkouts/post";
import { joinWaitingListRoute } from "./routes/console/waiting-list/post";
import { decide } from "./routes/decide/post";
import { type Endpoint, mountEndpoints } from "./routes/define";
import { EVALUATION_ENDPOINTS } from "./routes/evaluations/endpoints";
import { applyRefundIntents, evaluateAlerts, listAlerts } from "./routes/internal/alerts";
import { resetCanaryBaselines, runCanaryRoute } from "./routes/internal/canary";
import { creditLedger } from "./routes/internal/ledger-credit";
import { getKey } from "./routes/key/get";
import { listModels } from "./routes/models/list";
import { openApiDocument, registerSecuritySchemes } from "./routes/openapi/get";
import { listPublicPlans } from "./routes/plans/list";
import { QUESTION_ENDPOINTS } from "./routes/questions/endpoints";
import { REVIEW_ENDPOINTS } from "./routes/reviews/endpoints";
import { getUsage } from "./routes/usage/get";
import { stripeWebhook } from "./routes/webhooks/stripe";
import { provideServices } from "./services";

/** Every endpoint of the API and the console (the OpenAPI document's own route is added by `createApp`). */
export const ENDPOINTS: readonly Endpoint[] = [
  decide,
  listModels,
  getKey,
  getBalance,
  getUsage,
  creditLedger,
  evaluateAlerts,
  listAlerts,
  applyRefundIntents,
  runCanaryRoute,
  resetCanaryBaselines,
  ...CONSOLE_ENDPOINTS,
  ...EVALUATION_ENDPOINTS,
  ...CALIBRATION_ENDPOINTS,
  ...REVIEW_ENDPOINTS,
  ...BATCH_ENDPOINTS,
  ...QUESTION_ENDPOINTS,
  createCheckoutSession,
  listPlans,
  listPublicPlans,
  createSubscriptionCheckoutRoute,
  joinWaitingListRoute,
  createAllowanceReset,
  stripeWebhook,
];

/**
 * The edge application. Every request: `Strict-Transport-Security` on whatever it answers, request id (+
 * `x-client-request-id` check), one structured request line (and metrics point) once answered, the Worker's variables (checked once per env; a misconfigured Worker answers
 * 500), the services on the context, then the matched route's own auth (declared on the route: 401 → 403) and
 * handler. Unknown routes → 404, known paths with
 * another method → 405 with `allow` (both derived from the router), errors → one envelope.
 */
export function createApp(services?: ServicesFactory): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", strictTransportSecurity());
  app.use("*", requestId());
  app.use("*", requestLog());
  app.use("*", envCheck());
  app.use("*", provideServices(services));
  app.use("/v1/plans", publicCors());
  app.get("/livez", (c) => c.text("ok"));
  app.use("/", rootRedirect());
  app.route("/", consolePages);
  registerSecuritySchemes(app);
  const declared = mountEndpoints(app, [...ENDPOINTS, openApiDocument(app)]);
  app.onError(errorHandler(declared));
  app.notFound(routeNotFound(app));
  return app;
}

registerAppFactory(createApp);

/** The app with the real services. */
export const app = createApp();
