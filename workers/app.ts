import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./middleware/context";
import { envCheck } from "./middleware/env-check";
import { onError } from "./middleware/error-handler";
import { requestId } from "./middleware/request-id";
import { routePolicy } from "./middleware/route-policy";
import { routeNotFound } from "./middleware/routing";
import { balanceRoutes } from "./routes/balance/get";
import { postDecide } from "./routes/decide/post";
import { internalLedgerRoutes } from "./routes/internal/ledger-credit";
import { keyRoutes } from "./routes/key/get";
import { modelsRoutes } from "./routes/models/list";

/**
 * The edge application. Every request: request id (+ `x-client-request-id` check), the Worker's variables
 * (checked once per env; a misconfigured Worker answers 500), then the matched route's
 * policy (auth 401 → scope 403, see middleware/route-policy.ts), then the route. Unknown routes → 404,
 * known paths with another method → 405 with `allow` (derived from the routes below), errors → one envelope.
 */
export const app = new OpenAPIHono<AppEnv>();

app.use("*", requestId());
app.use("*", envCheck());
app.use("/v1/*", routePolicy());
app.onError(onError);
app.notFound(routeNotFound(app));

// ---- routes (one line per resource; auth/scope come from ROUTE_POLICIES, not from here) ----
app.get("/livez", (c) => c.text("ok"));
app.post("/v1/decide", postDecide);
app.route("/", keyRoutes);
app.route("/", modelsRoutes);
app.route("/", balanceRoutes);
app.route("/", internalLedgerRoutes);
// ---- end of routes ----
