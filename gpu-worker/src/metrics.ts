const BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Prometheus counters, gauges and a latency histogram of the worker; `render()` gives the text format. */
export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly buckets = new Array<number>(BUCKETS.length).fill(0);
  private latencySum = 0;
  private latencyCount = 0;
  tokensEvaluated = 0;
  tokensReused = 0;
  /** Set from the scorers when rendered. */
  prefixTokensKept = 0;
  /** Summed over the scorers when /metrics is read (`Scorer.spreadRequests`). */
  requestsSpread = 0;
  queueDepth = 0;
  inFlight = 0;

  request(outcome: string, seconds?: number): void {
    this.requests.set(outcome, (this.requests.get(outcome) ?? 0) + 1);
    if (seconds === undefined) return;
    this.latencySum += seconds;
    this.latencyCount += 1;
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) this.buckets[i] = (this.buckets[i] as number) + 1;
    });
  }

  render(): string {
    const lines = [
      "# HELP svc_engine_requests_total Score requests by outcome.",
      "# TYPE svc_engine_requests_total counter",
      ...[...this.requests].map(([o, n]) => `svc_engine_requests_total{outcome="${o}"} ${n}`),
      "# HELP svc_engine_tokens_evaluated_total Tokens the answered requests evaluate from position 0 (their meters).",
      "# TYPE svc_engine_tokens_evaluated_total counter",
      `svc_engine_tokens_evaluated_total ${this.tokensEvaluated}`,
      "# HELP svc_engine_prefix_tokens_kept_total State-prefix tokens a sequence kept from its previous request instead of decoding them again.",
      "# TYPE svc_engine_prefix_tokens_kept_total counter",
      `svc_engine_prefix_tokens_kept_total ${this.prefixTokensKept}`,
      "# HELP svc_engine_requests_spread_total Requests whose questions a second, idle lane helped evaluate.",
      "# TYPE svc_engine_requests_spread_total counter",
      `svc_engine_requests_spread_total ${this.requestsSpread}`,
      "# HELP svc_engine_tokens_reused_total Cached tokens evaluations built on instead of re-evaluating them.",
      "# TYPE svc_engine_tokens_reused_total counter",
      `svc_engine_tokens_reused_total ${this.tokensReused}`,
      "# HELP svc_engine_request_duration_seconds Latency of scored requests.",
      "# TYPE svc_engine_request_duration_seconds histogram",
      ...BUCKETS.map((b, i) => `svc_engine_request_duration_seconds_bucket{le="${b}"} ${this.buckets[i]}`),
      `svc_engine_request_duration_seconds_bucket{le="+Inf"} ${this.latencyCount}`,
      `svc_engine_request_duration_seconds_sum ${this.latencySum}`,
      `svc_engine_request_duration_seconds_count ${this.latencyCount}`,
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
