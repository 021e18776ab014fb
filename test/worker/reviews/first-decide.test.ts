import { expect, it } from "vitest";
import { createApp } from "../../../workers/app";
import type { Engine } from "../../../workers/clients/engine";
import { buildServices } from "../../../workers/services";
import { fixedCheckEngine, REFUND_CHECK } from "../../support/calibrations";
import { bearer } from "../../support/worker-http";
import { account, env, waitForReviews } from "./support";

it("the first decide right after the rule was made, with the key still cached from the create, is kept even when its GPU call outlasts the key cache's second (issue 51)", async () => {
  const a = await account();
  const fixed = fixedCheckEngine(0.6);
  // As the real model under load: the answer comes 1.5 s later, after the key cache's second has passed.
  const slow = {
    dispatch: async (req: Parameters<typeof fixed.dispatch>[0]) => {
      await new Promise((r) => setTimeout(r, 1_500));
      return fixed.dispatch(req);
    },
  };
  const engine = slow as unknown as Engine;
  const app = createApp((e) => ({ ...buildServices(e), engine }));
  const call = (path: string, body: unknown) =>
    app.request(
      path,
      {
        method: "POST",
        headers: { ...bearer(a.live), "content-type": "application/json" },
        body: JSON.stringify(body),
      },
      env,
    );
  const made = await call("/v1/review-rules", {
    question: REFUND_CHECK,
    when: { below_confidence: 0.8, sample_rate: 0 },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  const rule = ((await made.json()) as { id: string }).id;
  const res = await call("/v1/decide", {
    model: "svc-1.5.1",
    state: "first",
    questions: { refund: REFUND_CHECK },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const id = ((await res.json()) as { id: string }).id;
  const kept = await waitForReviews(a.live, rule, 1);
  expect(kept.map((r) => r.request_id)).toEqual([id]);
});
