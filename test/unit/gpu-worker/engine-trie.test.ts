import { describe, expect, it } from "vitest";
import { Mutex, Pool } from "../../../gpu-worker/src/lock";
import { Metrics } from "../../../gpu-worker/src/metrics";
import { buildTrie, distributionsNeeded } from "../../../gpu-worker/src/trie";

describe("label trie: shared prefixes are evaluated once", () => {
  it.each([
    { name: "labels split at the first token → ONE distribution", seqs: [[1], [2], [3]], reads: 1 },
    { name: "two labels share a first token → root + that node", seqs: [[1, 5], [1, 6], [2]], reads: 2 },
    { name: "a label that is a prefix of another", seqs: [[1], [1, 7, 8]], reads: 3 },
    {
      name: "identical labels end at the same node",
      seqs: [
        [4, 2],
        [4, 2],
      ],
      reads: 2,
    },
  ])("$name", ({ seqs, reads }) => {
    const trie = buildTrie(seqs);
    expect(distributionsNeeded(trie)).toBe(reads);
    const ends: number[] = [];
    const walk = (n: { ends: number[]; children: { ends: number[]; children: unknown[] }[] }) => {
      ends.push(...n.ends);
      for (const c of n.children) walk(c as never);
    };
    walk(trie);
    expect(ends.sort()).toEqual(seqs.map((_, i) => i));
  });
});

describe("scheduling primitives", () => {
  it("Mutex runs callers one at a time, in arrival order, even when one throws", async () => {
    const m = new Mutex();
    const log: string[] = [];
    const job = (id: string, ms: number, fail = false) =>
      m.run(async () => {
        log.push(`start ${id}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${id}`);
        if (fail) throw new Error(id);
      });
    await Promise.allSettled([job("a", 20, true), job("b", 1), job("c", 5)]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("Pool hands each item to one user at a time and queues the rest FIFO", async () => {
    const pool = new Pool(["s0", "s1"]);
    let busy = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        pool.use(async () => {
          peak = Math.max(peak, ++busy);
          await new Promise((r) => setTimeout(r, 5));
          busy--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });

  it("Metrics renders Prometheus text with outcome counters and a cumulative histogram", () => {
    const m = new Metrics();
    m.request("ok", 0.2);
    m.request("ok", 3);
    m.request("unauthorized");
    const t = m.render();
    expect(t).toContain('svc_engine_requests_total{outcome="ok"} 2');
    expect(t).toContain('svc_engine_requests_total{outcome="unauthorized"} 1');
    expect(t).toContain('svc_engine_request_duration_seconds_bucket{le="0.25"} 1');
    expect(t).toContain('svc_engine_request_duration_seconds_bucket{le="5"} 2');
    expect(t).toContain("svc_engine_request_duration_seconds_count 2");
  });
});
