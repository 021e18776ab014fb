// Where the Worker's own CPU goes, before/after a change (issue 53): workerd's clock moves only at I/O, so the
// breakdown cannot see CPU inside the Worker. This bench opens each Worker's inspector, runs the V8 sampling
// profiler while only that Worker's decides run (sequential, cache-warm), and compares per decide: the samples
// that were not idle, and the functions with the most self time. The non-idle samples are not CPU: they also count
// time the isolate waits inside workerd (about twice workerd's own CPU per decide); for CPU, read the workerd column
// of bench/edge-ab.ts. Use this for where, not how much. SVC_CPU_SAMPLE_US sets the interval (default 100 µs).
//   NODE_OPTIONS=--experimental-websocket npx tsx bench/edge-cpu.ts <before-root> [decides per round] [rounds]
// SVC_CPU_PROFILE_DIR=<dir> also writes each round's profile there (<before|after>-<round>.cpuprofile: DevTools
// opens it).
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { DECIDE_BODY } from "./support/bare-worker";
import { runBench, startEdgeBench } from "./support/edge-bench";
import { fundedAccountHeaders } from "./support/funded-account";

const BEFORE = resolve(process.argv[2] ?? ".");
const N = Number(process.argv[3] ?? 500);
const ROUNDS = Number(process.argv[4] ?? 2);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

/** A DevTools-protocol session with the Worker's isolate (the inspector's first target). */
async function inspect(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
    webSocketDebuggerUrl: string;
    title?: string;
  }[];
  const target = targets.find((t) => !t.title?.startsWith("core:")) ?? targets[0];
  if (!target) throw new Error(`no inspector target on ${port}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    ws.addEventListener("open", ok);
    ws.addEventListener("error", fail);
  });
  let next = 1;
  const pending = new Map<number, (r: unknown) => void>();
  ws.addEventListener("message", (m: { data: unknown }) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((ok) => {
      const id = next++;
      pending.set(id, ok);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: Number(process.env.SVC_CPU_SAMPLE_US ?? 100) });
  return { send, close: () => ws.close() };
}

const IDLE = new Set(["(idle)"]);

function summarise(profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node || IDLE.has(node.callFrame.functionName)) return;
    busy += us;
    const f = node.callFrame;
    // By name: the two bundles number their lines differently.
    const key = f.functionName || `(anonymous) ${f.url.split("/").pop() ?? ""}`;
    self.set(key, (self.get(key) ?? 0) + us);
  });
  return { busy, self };
}

async function main(): Promise<void> {
  const bench = await startEdgeBench();
  const ports = { before: await freePort(), after: await freePort() };
  const edges = {
    before: await bench.edge({ entry: `${BEFORE}/workers/index.ts`, inspectorPort: ports.before }),
    after: await bench.edge({ inspectorPort: ports.after }),
  };
  try {
    const totals = { before: [] as number[], after: [] as number[] };
    const selfAll = { before: new Map<string, number>(), after: new Map<string, number>() };
    let n = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const which of round % 2 ? (["before", "after"] as const) : (["after", "before"] as const)) {
        const url = edges[which].url;
        const headers = await fundedAccountHeaders(bench.services.env, url);
        const decide = () =>
          fetch(`${url}/v1/decide`, {
            method: "POST",
            headers: { ...headers, "idempotency-key": `cpu-${Date.now()}-${n++}` },
            body: DECIDE_BODY,
          });
        for (let i = 0; i < 30; i++) await (await decide()).arrayBuffer();
        const session = await inspect(ports[which]);
        await session.send("Profiler.start");
        for (let i = 0; i < N; i++) {
          const res = await decide();
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${which}: status ${res.status}`);
        }
        await new Promise((r) => setTimeout(r, 200)); // the last decides' background work
        const { profile } = (await session.send("Profiler.stop")) as { profile: Profile };
        session.close();
        if (process.env.SVC_CPU_PROFILE_DIR)
          writeFileSync(
            `${process.env.SVC_CPU_PROFILE_DIR}/${which}-${round}.cpuprofile`,
            JSON.stringify(profile),
          );
        const { busy, self } = summarise(profile);
        totals[which].push(busy / N / 1000);
        for (const [k, us] of self) selfAll[which].set(k, (selfAll[which].get(k) ?? 0) + us / N / ROUNDS);
        console.log(`round ${round}, ${which}: non-idle ${(busy / N / 1000).toFixed(3)} ms per decide`);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `\nnon-idle samples per decide (mean of ${ROUNDS} rounds of ${N}): before ${mean(totals.before).toFixed(3)} ms, after ${mean(totals.after).toFixed(3)} ms`,
    );
    const keys = new Set([...selfAll.before.keys(), ...selfAll.after.keys()]);
    const rows = [...keys]
      .map((k) => ({ k, b: selfAll.before.get(k) ?? 0, a: selfAll.after.get(k) ?? 0 }))
      .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b))
      .slice(0, 30);
    console.log("\n| function (self time, µs per decide) | before | after | after − before |");
    console.log("| --- | ---: | ---: | ---: |");
    for (const r of rows)
      console.log(`| ${r.k} | ${r.b.toFixed(1)} | ${r.a.toFixed(1)} | ${(r.a - r.b).toFixed(1)} |`);
  } finally {
    await bench.stop();
  }
}

runBench(main);
