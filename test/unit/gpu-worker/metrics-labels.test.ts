import { describe, expect, it } from "vitest";
import { Histogram, Metrics } from "../../../gpu-worker/src/metrics";

describe("issue 43: the GPU worker's metrics carry the exact version and numerics class, queue wait and lanes", () => {
  it("answered requests are counted and timed by exact version and numerics class; early refusals by outcome alone", () => {
    const m = new Metrics();
    const at = { version: "svc-1.5.1", numerics_class: "cpu-avx2-t4" };
    m.request("ok", 0.2, at);
    m.tokens(120, 30, at);
    m.request("unauthorized");
    const t = m.render();
    expect(t).toContain(
      'svc_engine_requests_total{outcome="ok",version="svc-1.5.1",numerics_class="cpu-avx2-t4"} 1',
    );
    expect(t).toContain('svc_engine_requests_total{outcome="unauthorized"} 1');
    expect(t).toContain(
      'svc_engine_version_request_duration_seconds_bucket{version="svc-1.5.1",numerics_class="cpu-avx2-t4",le="0.25"} 1',
    );
    expect(t).toContain(
      'svc_engine_version_tokens_evaluated_total{version="svc-1.5.1",numerics_class="cpu-avx2-t4"} 120',
    );
    // The unlabelled totals stay (dashboards and KEDA read them).
    expect(t).toContain("svc_engine_request_duration_seconds_count 1");
    expect(t).toContain("svc_engine_tokens_evaluated_total 120");
  });

  it("queue wait by priority and lane busy time, busy and total sequences per lane", () => {
    const m = new Metrics();
    const live = new Histogram();
    live.observe(0.03);
    m.schedulers = [
      {
        numericsClass: "cpu-avx2-t4",
        queueWait: new Map([["live", live]]),
        lanes: [
          { sequences: 2, busySequences: 1, busySeconds: 4.5 },
          { sequences: 2, busySequences: 0, busySeconds: 0 },
        ],
      },
    ];
    const t = m.render();
    expect(t).toContain(
      'svc_engine_queue_wait_seconds_bucket{numerics_class="cpu-avx2-t4",priority="live",le="0.05"} 1',
    );
    expect(t).toContain(
      'svc_engine_queue_wait_seconds_count{numerics_class="cpu-avx2-t4",priority="live"} 1',
    );
    expect(t).toContain('svc_engine_lane_busy_seconds_total{numerics_class="cpu-avx2-t4",lane="0.0"} 4.5');
    expect(t).toContain('svc_engine_lane_sequences{numerics_class="cpu-avx2-t4",lane="0.1"} 2');
    expect(t).toContain('svc_engine_lane_busy_sequences{numerics_class="cpu-avx2-t4",lane="0.0"} 1');
  });
});
