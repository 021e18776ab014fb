import { Hono } from "hono";
import type { Env } from "./env";

/** The edge application: every public route, in the spec's order of checks. */
export const app = new Hono<{ Bindings: Env }>();

app.get("/livez", (c) => c.text("ok"));
