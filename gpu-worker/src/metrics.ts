const BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Prometheus labels; an absent (undefined) one is left out, so early refusals keep `{outcome="…"}` alone. */
export type Labels = Record<string, string | undefined>;

function labelText(labels: Labels, extra = ""): string {
  const parts = Object.entries(labels)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}="${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(",")}}` : "";
}

/** A cumulative latency histogram (seconds) with the worker's buckets. */
export class Histogram {
  readonly buckets = new Array<number>(BUCKETS.length).fill(0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count += 1;
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) this.buckets[i] = (this.buckets[i] as number) + 1;
    });
  }

  /** Its `_bucket`, `_sum` and `_count` lines under `name` with `labels`. */
  lines(name: string, labels: Labels = {}): string[] {
    return [
      ...BUCKETS.map((b, i) => `${name}_bucket${labelText(labels, `le="${b}"`)} ${this.buckets[i]}`),
      `${name}_bucket${labelText(labels, 'le="+Inf"')} ${this.count}`,
      `${name}_sum${labelText(labels)} ${this.sum}`,
      `${name}_count${labelText(labels)} ${this.count}`,
    ];
  }
}

/** What a scorer's scheduler reports (`Scorer.schedulerStats`): queue waits by priority and lane busy time. */
export interface SchedulerStats {
  numericsClass: string;
  /** From admission to a sequence, by priority (`live`, `batch`). */
  queueWait: ReadonlyMap<string, Histogram>;
  lanes: readonly { sequences: number; busySequences: number; busySeconds: number }[];
}

/** Prometheus counters, gauges and latency histograms of the worker; `render()` gives the text format. */
export class Metrics {
  /** Requests by their label set (outcome, and once known the exact version and numerics class). */
  private readonly requests = new Map<string, { labels: Labels; n: number }>();
  /** Latency of answered requests, by exact version and numerics class. */
  private readonly latency = new Map<string, { labels: Labels; h: Histogram }>();
  /** Tokens evaluated by exact version and numerics class. */
  private readonly evaluated = new Map<string, { labels: Labels; n: number }>();
  tokensEvaluated = 0;
  tokensReused = 0;
  /** Set from the scorers when rendered. */
  prefixTokensKept = 0;
  /** Summed over the scorers when /metrics is read (`Scorer.spreadRequests`). */
  requestsSpread = 0;
  /** Set from the scorers when rendered (one entry a weights file). */
  schedulers: SchedulerStats[] = [];
  queueDepth = 0;
  inFlight = 0;

  /** Counts a request's outcome; `at` = its exact version and numerics class once the worker knows them. */
  request(outcome: string, seconds?: number, at: { version?: string; numerics_class?: string } = {}): void {
    const labels: Labels = { outcome, version: at.version, numerics_class: at.numerics_class };
    const key = labelText(labels);
    const row = this.requests.get(key) ?? { labels, n: 0 };
    row.n += 1;
    this.requests.set(key, row);
    if (seconds === undefined) return;
    const byVersion: Labels = { version: at.version, numerics_class: at.numerics_class };
    const lk = labelText(byVersion);
    const l = this.latency.get(lk) ?? { labels: byVersion, h: new Histogram() };
    l.h.observe(seconds);
    this.latency.set(lk, l);
  }

  /** Adds an answer's evaluated tokens (the total, and by exact version and numerics class). */
  tokens(evaluated: number, reused: number, at: { version: string; numerics_class: string }): void {
    this.tokensEvaluated += evaluated;
    this.tokensReused += reused;
    const labels: Labels = { ...at };
    const key = labelText(labels);
    const row = this.evaluated.get(key) ?? { labels, n: 0 };
    row.n += evaluated;
    this.evaluated.set(key, row);
  }

  render(): string {
    const all = new Histogram();
    for (const { h } of this.latency.values()) {
      all.sum += h.sum;
      all.count += h.count;
      h.buckets.forEach((n, i) => {
        all.buckets[i] = (all.buckets[i] as number) + n;
      });
    }
    const lanes = this.schedulers.flatMap((s, si) =>
      s.lanes.map((l, li) => ({ ...l, labels: { numerics_class: s.numericsClass, lane: `${si}.${li}` } })),
    );
    const lines = [
      "# HELP svc_engine_requests_total Score requests by outcome (and, once known, exact version and numerics class).",
      "# TYPE svc_engine_requests_total counter",
      ...[...this.requests.values()].map((r) => `svc_engine_requests_total${labelText(r.labels)} ${r.n}`),
      "# HELP svc_engine_tokens_evaluated_total Tokens the answered requests evaluate from position 0 (their meters).",
      "# TYPE svc_engine_tokens_evaluated_total counter",
      `svc_engine_tokens_evaluated_total ${this.tokensEvaluated}`,
      "# HELP svc_engine_version_tokens_evaluated_total Tokens evaluated, by exact version and numerics class.",
      "# TYPE svc_engine_version_tokens_evaluated_total counter",
      ...[...this.evaluated.values()].map(
        (r) => `svc_engine_version_tokens_evaluated_total${labelText(r.labels)} ${r.n}`,
      ),
      "# HELP svc_engine_prefix_tokens_kept_total State-prefix tokens a sequence kept from its previous request instead of decoding them again.",
      "# TYPE svc_engine_prefix_tokens_kept_total counter",
      `svc_engine_prefix_tokens_kept_total ${this.prefixTokensKept}`,
      "# HELP svc_engine_requests_spread_total Requests whose questions a second, idle lane helped evaluate.",
      "# TYPE svc_engine_requests_spread_total counter",
      `svc_engine_requests_spread_total ${this.requestsSpread}`,
      "# HELP svc_engine_tokens_reused_total Cached tokens evaluations built on instead of re-evaluating them.",
      "# TYPE svc_engine_tokens_reused_total counter",
      `svc_engine_tokens_reused_total ${this.tokensReused}`,
      "# HELP svc_engine_request_duration_seconds Latency of scored requests (all versions).",
      "# TYPE svc_engine_request_duration_seconds histogram",
      ...all.lines("svc_engine_request_duration_seconds"),
      "# HELP svc_engine_version_request_duration_seconds Latency of scored requests by exact version and numerics class.",
      "# TYPE svc_engine_version_request_duration_seconds histogram",
      ...[...this.latency.values()].flatMap((l) =>
        l.h.lines("svc_engine_version_request_duration_seconds", l.labels),
      ),
      "# HELP svc_engine_queue_wait_seconds Time from admission to a free sequence, by priority (live before batch).",
      "# TYPE svc_engine_queue_wait_seconds histogram",
      ...this.schedulers.flatMap((s) =>
        [...s.queueWait].flatMap(([priority, h]) =>
          h.lines("svc_engine_queue_wait_seconds", { numerics_class: s.numericsClass, priority }),
        ),
      ),
      "# HELP svc_engine_lane_busy_seconds_total Sequence-seconds a lane's sequences held requests; ÷ svc_engine_lane_sequences = utilisation.",
      "# TYPE svc_engine_lane_busy_seconds_total counter",
      ...lanes.map((l) => `svc_engine_lane_busy_seconds_total${labelText(l.labels)} ${l.busySeconds}`),
      "# HELP svc_engine_lane_sequences Sequences of a lane.",
      "# TYPE svc_engine_lane_sequences gauge",
      ...lanes.map((l) => `svc_engine_lane_sequences${labelText(l.labels)} ${l.sequences}`),
      "# HELP svc_engine_lane_busy_sequences Sequences of a lane holding a request now.",
      "# TYPE svc_engine_lane_busy_sequences gauge",
      ...lanes.map((l) => `svc_engine_lane_busy_sequences${labelText(l.labels)} ${l.busySequences}`),
      "# HELP svc_engine_queue_depth Requests waiting for a sequence.",
      "# TYPE svc_engine_queue_depth gauge",
      `svc_engine_queue_depth ${this.queueDepth}`,
      "# HELP svc_engine_in_flight Requests admitted and not yet answered.",
      "# TYPE svc_engine_in_flight gauge",
      `svc_engine_in_flight ${this.inFlight}`,
    ];
    return `${lines.join("\n")}\n`;
  }
}
