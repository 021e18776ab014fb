import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ScoreRequest } from "../../../schema/engine-protocol";
import { createApp } from "../../../workers/app";
import type { DispatchOptions, Engine } from "../../../workers/clients/engine";
import type { Env } from "../../../workers/env";
import { ApiError } from "../../../workers/errors";
import { buildServices } from "../../../workers/services";
import { decideWithKey, fundedLiveAccount } from "../../support/idempotency";
import { uniformScore } from "../../support/uniform-engine";
import { bearer, VALID_DECIDE } from "../../support/worker-http";

/**
 * A GPU stand-in whose calls run until their signal ends them, as the real pool does (it aborts the worker's
 * fetch and the worker stops at its next decode); `started` resolves when a call is in dispatch.
 */
function hangingEngine() {
  let started!: () => void;
  const inDispatch = new Promise<void>((r) => (started = r));
  const engine = {
    dispatch: (_req: ScoreRequest, opts: DispatchOptions) =>
      new Promise((_resolve, reject) => {
        started();
        opts.signal?.addEventListener("abort", () => reject(new ApiError("no_capacity")), { once: true });
      }),
  } as unknown as Engine;
  return { engine, inDispatch };
}

const answering = { dispatch: async (req: ScoreRequest) => uniformScore(req) } as unknown as Engine;
const appWith = (engine: Engine) => createApp((e) => ({ ...buildServices(e), engine }));

describe("'the client disconnects': dispatch is cancelled, the charge refunded and the record released as for a 5xx (issue 30)", () => {
  it("request.signal aborts mid-dispatch → the call ends, the balance is whole, the same idempotency key runs again at once and is charged once", async () => {
    const { key, spent } = await fundedLiveAccount();
    const { engine, inDispatch } = hangingEngine();
    const client = new AbortController();
    const pending = appWith(engine).request(
      "/v1/decide",
      {
        method: "POST",
        headers: { ...bearer(key.secret), "content-type": "application/json", "idempotency-key": "k-gone" },
        body: VALID_DECIDE,
        signal: client.signal,
      },
      env as unknown as Env,
    );
    await inDispatch;
    expect(await spent()).toBeGreaterThan(0); // charged before dispatch
    client.abort();
    expect((await pending).status).toBe(503);
    expect(await spent()).toBe(0);

    const again = await decideWithKey(appWith(answering), key.secret, "k-gone");
    expect(again.status).toBe(200);
    const usage = ((await again.json()) as { usage: { charge_micro_cents: number } }).usage;
    expect(await spent()).toBe(usage.charge_micro_cents);
  });
});
