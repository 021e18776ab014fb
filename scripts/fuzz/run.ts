import fc from "fast-check";
import { bodies } from "./bodies";
import { judge } from "./oracle";
import { runDecideSteps } from "./pipeline";
import { routeBodies } from "./route-bodies";
import { bodyRoutes, judgeRoute } from "./routes";

/** One body the oracle found wrong (kept for the report). */
export interface FuzzFailure {
  kind: string;
  problems: string[];
  /** The body as text (first 300 characters). */
  body: string;
}

/** Counts of one fuzz run. */
export interface FuzzReport {
  seed: number;
  bodies: number;
  ms: number;
  byKind: Record<string, number>;
  /** Answer → count: `200` (passed every pure step) or `<status> <code>`. */
  byAnswer: Record<string, number>;
  exceptions: number;
  failureCount: number;
  /** The first failures (at most 20). */
  failures: FuzzFailure[];
}

const emptyReport = (seed: number): FuzzReport => ({
  seed,
  bodies: 0,
  ms: 0,
  byKind: {},
  byAnswer: {},
  exceptions: 0,
  failureCount: 0,
  failures: [],
});

const bump = (m: Record<string, number>, k: string) => {
  m[k] = (m[k] ?? 0) + 1;
};

/**
 * Generates `count` request bodies (fast-check, from `seed`, in batches so memory stays flat) and runs each
 * through the strict parser and the validator (every pure step of POST /v1/decide), judging every answer.
 */
export function fuzzDecide(opts: {
  count: number;
  seed: number;
  batch?: number;
  /** Index of the first batch (a shard of a larger run starts further on). */
  firstBatch?: number;
  onBatch?: (r: FuzzReport) => void;
}): FuzzReport {
  const report = emptyReport(opts.seed);
  const started = performance.now();
  const batch = opts.batch ?? 5_000;
  for (let b = opts.firstBatch ?? 0; report.bodies < opts.count; b++) {
    const n = Math.min(batch, opts.count - report.bodies);
    for (const body of fc.sample(bodies, { numRuns: n, seed: opts.seed + b })) {
      report.bodies++;
      bump(report.byKind, body.kind);
      let problems: string[];
      try {
        const outcome = runDecideSteps(body.bytes);
        bump(report.byAnswer, outcome.ok ? "200" : `${outcome.status} ${outcome.code}`);
        problems = judge(body, outcome);
      } catch (err) {
        report.exceptions++;
        problems = [`exception: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`];
      }
      if (problems.length === 0) continue;
      report.failureCount++;
      if (report.failures.length < 20)
        report.failures.push({
          kind: body.kind,
          problems,
          body: new TextDecoder().decode(body.bytes).slice(0, 300),
        });
    }
    report.ms = performance.now() - started;
    opts.onBatch?.(report);
  }
  return report;
}

/** Adds the counts of shard reports (run side by side over consecutive batches) into one. */
export function mergeReports(reports: FuzzReport[]): FuzzReport {
  const out = emptyReport(reports[0]?.seed ?? 0);
  for (const r of reports) {
    out.bodies += r.bodies;
    out.ms = Math.max(out.ms, r.ms);
    out.exceptions += r.exceptions;
    out.failureCount += r.failureCount;
    out.failures.push(...r.failures);
    for (const [k, n] of Object.entries(r.byKind)) out.byKind[k] = (out.byKind[k] ?? 0) + n;
    for (const [k, n] of Object.entries(r.byAnswer)) out.byAnswer[k] = (out.byAnswer[k] ?? 0) + n;
  }
  return out;
}

/**
 * Generates `count` bodies for the routes that take one (every one but GET: console, internal, webhooks,
 * decide and evaluations), some nested thousands deep, and sends each to its route's handler in-process
 * (`bodyRoutes`): no answer may be a 500 before a service is used, and every code must be the catalogue's,
 * with its status, and declared by the route.
 */
export async function fuzzRoutes(opts: { count: number; seed: number; batch?: number }): Promise<FuzzReport> {
  const report = emptyReport(opts.seed);
  const started = performance.now();
  const { routes, call } = await bodyRoutes();
  const batch = opts.batch ?? 1_000;
  for (let b = 0; report.bodies < opts.count; b++) {
    const n = Math.min(batch, opts.count - report.bodies);
    for (const body of fc.sample(routeBodies(routes), { numRuns: n, seed: opts.seed + b })) {
      const route = routes[body.route]!;
      report.bodies++;
      bump(report.byKind, body.deep ? `${route.key} (deep)` : route.key);
      let problems: string[];
      try {
        const outcome = await call(route, body.bytes);
        bump(report.byAnswer, outcome.passed ? "passed" : `${outcome.status} ${outcome.code}`);
        problems = judgeRoute(route, outcome);
      } catch (err) {
        report.exceptions++;
        problems = [`exception: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`];
      }
      if (problems.length === 0) continue;
      report.failureCount++;
      if (report.failures.length < 20)
        report.failures.push({
          kind: route.key,
          problems,
          body: new TextDecoder().decode(body.bytes).slice(0, 300),
        });
    }
  }
  report.ms = performance.now() - started;
  return report;
}
