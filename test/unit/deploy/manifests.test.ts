// The deployment files, checked without a cluster or a Docker daemon: they parse, and every variable they set
// is one the code reads (docs/deploy.md lists them; env-documented.test.ts checks that list).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { parseAllDocuments } from "yaml";
import { DISPATCH_CEILING_MS } from "../../../workers/clients/engine";
import { edgeVars, gpuWorkerVars, ROOT } from "./code-vars";

interface K8sDoc {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string }[];
}

const dir = join(ROOT, "deploy/gpu-worker");
const docs: K8sDoc[] = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), "utf8")).map((d) => {
      if (d.errors.length) throw new Error(`${f}: ${d.errors.map((e) => e.message).join("; ")}`);
      return d.toJS() as K8sDoc;
    }),
  );
const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name);
const containersOf = (d: K8sDoc) =>
  (d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;

describe("Kubernetes manifests (deploy/gpu-worker)", () => {
  it("parse, and every object names its kind, version and name", () => {
    expect(docs.length).toBeGreaterThanOrEqual(8);
    for (const d of docs) expect([d.apiVersion, d.kind, d.metadata?.name].every(Boolean)).toBe(true);
  });

  it("the worker's container sets only variables the worker reads (or ones another value expands)", () => {
    const worker = containersOf(find("StatefulSet", "svc-gpu-worker")!)[0]!;
    const reads = gpuWorkerVars();
    const env = worker.env ?? [];
    const expanded = new Set(
      env.flatMap((e) => [...(e.value ?? "").matchAll(/\$\(([A-Z_]+)\)/g)].map((m) => m[1])),
    );
    const unknown = env.map((e) => e.name).filter((n) => !reads.has(n) && !expanded.has(n));
    expect(unknown).toEqual([]);
    // Announcing is what puts a pod in the pool.
    expect(env.map((e) => e.name)).toEqual(
      expect.arrayContaining(["SVC_ANNOUNCE_URL", "GPU_SIGNING_SECRET"]),
    );
  });

  it("the autoscaler scales the StatefulSet on gauges the worker exports", () => {
    const so = find("ScaledObject", "svc-gpu-worker")!;
    const target = so.spec?.scaleTargetRef as { kind: string; name: string };
    expect(find(target.kind, target.name)).toBeDefined();
    const metrics = readFileSync(join(ROOT, "gpu-worker/src/metrics.ts"), "utf8");
    const queries = (so.spec as { triggers: { metadata: { query: string } }[] }).triggers.map(
      (t) => t.metadata.query,
    );
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) {
      const name = /\b(svc_engine_[a-z_]+)/.exec(q)?.[1];
      expect(name && metrics.includes(`${name} `)).toBeTruthy();
    }
  });

  it("the gateway routes the host a pod announces to that pod's headless-Service name", () => {
    const worker = containersOf(find("StatefulSet", "svc-gpu-worker")!)[0]!;
    const announced = worker.env?.find((e) => e.name === "SVC_ANNOUNCE_URL")?.value ?? "";
    const host = /^https:\/\/\$\(POD_NAME\)\.(.+)$/.exec(announced)?.[1] ?? "";
    const conf = (find("ConfigMap", "svc-gpu-gateway") as { data: Record<string, string> }).data[
      "default.conf"
    ]!;
    expect(conf).toContain(host.replaceAll(".", "\\."));
    expect(conf).toContain("$pod.svc-gpu-worker.svc-gpu.svc.cluster.local:8788");
  });

  it("the gateway turns a pod that does not answer into a 503 and never cuts a call before the edge does", () => {
    const conf = (find("ConfigMap", "svc-gpu-gateway") as { data: Record<string, string> }).data[
      "default.conf"
    ]!;
    // nginx's own 502/504 would be a worker answering wrongly to the pool (a fault, no other worker tried).
    const page = /error_page 502 504 = (@\w+);/.exec(conf)?.[1];
    expect(page).toBeDefined();
    expect(conf).toMatch(new RegExp(`location ${page} \\{[^}]*return 503 `));
    const read = Number(/proxy_read_timeout (\d+)s;/.exec(conf)?.[1]);
    expect(read * 1000).toBeGreaterThanOrEqual(DISPATCH_CEILING_MS);
  });

  it("a pod's lanes × threads fit its CPU request, and the in-flight threshold is under its sequences", () => {
    const worker = containersOf(find("StatefulSet", "svc-gpu-worker")!)[0]! as Container & {
      resources: { requests: { cpu: string } };
    };
    const value = (n: string) => Number(worker.env?.find((e) => e.name === n)?.value);
    const [lanes, threads, sequences] = ["SVC_LANES", "SVC_THREADS", "SVC_SEQUENCES"].map(value);
    expect([lanes, threads, sequences].every((n) => Number.isInteger(n) && n! > 0)).toBe(true);
    expect(lanes! * threads!).toBeLessThanOrEqual(Number(worker.resources.requests.cpu));
    const so = find("ScaledObject", "svc-gpu-worker")!;
    const inFlight = (
      so.spec as { triggers: { metadata: { query: string; threshold: string } }[] }
    ).triggers.find((t) => t.metadata.query.includes("svc_engine_in_flight"));
    expect(Number(inFlight?.metadata.threshold)).toBeLessThan(lanes! * sequences!);
  });
});

describe("NetworkPolicy of the GPU workers (issue 50 item 10: the ops port admits only the metrics scraper)", () => {
  interface Peer {
    podSelector?: { matchLabels?: Record<string, string> };
    namespaceSelector?: { matchLabels?: Record<string, string> };
    ipBlock?: unknown;
  }
  interface Rule {
    from?: Peer[];
    ports?: { port: string | number; protocol?: string }[];
  }
  const workerSet = find("StatefulSet", "svc-gpu-worker")!;
  const podLabels = (workerSet.spec as { template: { metadata: { labels: Record<string, string> } } })
    .template.metadata.labels;
  const policies = docs.filter((d) => d.kind === "NetworkPolicy");
  const selecting = policies.filter((p) => {
    const want = (p.spec as { podSelector?: { matchLabels?: Record<string, string> } }).podSelector
      ?.matchLabels;
    return want !== undefined && Object.entries(want).every(([k, v]) => podLabels[k] === v);
  });
  const rules = selecting.flatMap((p) => (p.spec as { ingress?: Rule[] }).ingress ?? []);
  const ports = containersOf(workerSet)[0]! as Container & {
    ports: { name: string; containerPort: number }[];
  };
  const portOf = (name: string) => ports.ports.find((p) => p.name === name)!;
  const admits = (rule: Rule, name: string) =>
    (rule.ports ?? []).some((p) => p.port === name || p.port === portOf(name).containerPort);

  it("selects the worker pods, in their namespace, and restricts their ingress", () => {
    expect(selecting).toHaveLength(1);
    expect(selecting[0]!.metadata?.namespace).toBe(workerSet.metadata?.namespace);
    expect((selecting[0]!.spec as { policyTypes: string[] }).policyTypes).toContain("Ingress");
  });

  it("every rule names its ports and its sources (an empty `from` or `ports` would admit everyone)", () => {
    expect(rules.length).toBeGreaterThan(0);
    for (const r of rules) {
      expect(r.ports?.length).toBeGreaterThan(0);
      expect(r.from?.length).toBeGreaterThan(0);
      for (const peer of r.from ?? []) {
        expect(peer.ipBlock).toBeUndefined();
        expect(Object.keys(peer.podSelector?.matchLabels ?? {}).length).toBeGreaterThan(0);
      }
    }
  });

  it("the ops port (/metrics, /readyz, unsigned) admits only the Prometheus that the PodMonitor drives", () => {
    const monitor = find("PodMonitor", "svc-gpu-worker")!;
    const scraped = (monitor.spec as { podMetricsEndpoints: { port: string }[] }).podMetricsEndpoints[0]!
      .port;
    expect(scraped).toBe("ops");
    const opsRules = rules.filter((r) => admits(r, "ops"));
    expect(opsRules).toHaveLength(1);
    const prometheusNamespace = /prometheus-operated\.([a-z0-9-]+)\.svc/.exec(
      JSON.stringify(find("ScaledObject", "svc-gpu-worker")!.spec),
    )?.[1];
    expect(opsRules[0]!.from).toEqual([
      {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": prometheusNamespace } },
        podSelector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } },
      },
    ]);
    expect(admits(opsRules[0]!, "http")).toBe(false);
  });

  it("the public port admits only the gateway's pods", () => {
    const gateway = find("Deployment", "svc-gpu-gateway")!;
    const gatewayLabels = (gateway.spec as { template: { metadata: { labels: Record<string, string> } } })
      .template.metadata.labels;
    const httpRules = rules.filter((r) => admits(r, "http"));
    expect(httpRules).toHaveLength(1);
    expect(httpRules[0]!.from).toEqual([{ podSelector: { matchLabels: gatewayLabels } }]);
  });
});

describe("gpu-worker/Dockerfile", () => {
  const dockerfile = readFileSync(join(ROOT, "gpu-worker/Dockerfile"), "utf8");
  /** Every `ENV NAME=value` the image sets. */
  const imageEnv: Record<string, string> = Object.fromEntries(
    [...dockerfile.matchAll(/^ENV (.+)$/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)].map((x) => [x[1], x[2]]),
    ),
  );

  it("sets only variables the worker or its build scripts read", () => {
    const names = Object.keys(imageEnv);
    expect(names.length).toBeGreaterThan(0);
    const reads = gpuWorkerVars();
    expect(names.filter((n) => !reads.has(n))).toEqual([]);
  });

  it("a container started from the image alone is sized as a pod of the StatefulSet", () => {
    const pod = containersOf(find("StatefulSet", "svc-gpu-worker")!)[0]!.env ?? [];
    for (const name of ["SVC_LANES", "SVC_THREADS", "SVC_SEQUENCES"])
      expect([name, imageEnv[name]]).toEqual([name, pod.find((e) => e.name === name)?.value]);
  });

  it("runs the weights pull with a plain pip (the scripts run $PIP as one program, not a command line)", () => {
    expect(dockerfile).toMatch(/^RUN .*npm run model:pull$/m);
    expect(dockerfile).not.toMatch(/PIP="[^"]* [^"]*"/);
  });
});

describe("wrangler.toml, environment production", () => {
  it("declares the Durable Objects and crons, and only variables the Worker reads", () => {
    const cfg = unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: "production" }, {});
    expect(cfg.name).toBe("svc-production");
    expect(cfg.durable_objects.bindings.map((b: { name: string }) => b.name).sort()).toEqual([
      "EVALUATIONS",
      "LEDGER",
    ]);
    // The crons workers/index.ts dispatches on (its CRONS; read as text: the module needs the Workers runtime).
    const index = readFileSync(join(ROOT, "workers/index.ts"), "utf8");
    const crons = /export const CRONS = \{([\s\S]*?)\n\}/.exec(index)?.[1] ?? "";
    const dispatched = [...crons.matchAll(/^\s+\w+: "([^"]+)",/gm)].map((m) => m[1]);
    expect(dispatched).toHaveLength(4);
    expect([...(cfg.triggers.crons ?? [])].sort()).toEqual(dispatched.sort());
    const reads = edgeVars();
    expect(Object.keys(cfg.vars).filter((n) => !reads.has(n))).toEqual([]);
    expect(cfg.vars.ENVIRONMENT).toBe("production");
    // Issue 43: bindings are not inherited, so the request metrics and Workers Logs are declared again here.
    expect(cfg.analytics_engine_datasets).toEqual([{ binding: "METRICS", dataset: "svc_requests" }]);
    expect(cfg.observability).toMatchObject({ enabled: true, head_sampling_rate: 1 });
    expect(cfg.logpush).toBe(true);
    // Local-only settings never reach production.
    for (const local of [
      "NEON_WS_PROXY",
      "NEON_HTTP_ENDPOINT",
      "STRIPE_API_URL",
      "STRICT_ERROR_DECLARATIONS",
    ])
      expect(cfg.vars[local]).toBeUndefined();
  });
});
