import { describe, expect, it } from "vitest";
import { LaneScheduler, SpeedMeter } from "../../../gpu-worker/src/lanes";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("LaneScheduler: admission by cost (issue 30)", () => {
  it("puts a request on the lane with the least pending planned tokens, so a long one holds one lane only", async () => {
    const s = new LaneScheduler([["a"], ["b"]]);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const long = s.run(7500, async (seq, adm) => {
      await held;
      adm.evaluated(7500);
      return seq;
    });
    expect(s.queued()).toEqual({ total: 7500, least: 0 });
    // Every short one goes to the free lane and finishes while the long one still runs.
    for (let i = 0; i < 3; i++) expect(await s.run(50, async (seq) => seq)).toBe("b");
    expect(s.queued()).toEqual({ total: 7500, least: 0 });
    release();
    expect(await long).toBe("a");
    expect(s.queued()).toEqual({ total: 0, least: 0 });
  });

  it("FIFO within a lane: a request starts once the work admitted ahead of it is done", async () => {
    const s = new LaneScheduler([["only"]]);
    const order: number[] = [];
    const runs = [300, 10, 200].map((cost, i) =>
      s.run(cost, async () => {
        await tick();
        order.push(i);
      }),
    );
    expect(s.queued().total).toBe(510);
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2]);
    expect(s.queued().total).toBe(0);
  });

  it("progress shrinks the lane's pending work; a failure frees what was left", async () => {
    const s = new LaneScheduler([["x"]]);
    await expect(
      s.run(100, async (_seq, adm) => {
        adm.evaluated(40);
        expect(s.queued().total).toBe(60);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(s.queued().total).toBe(0);
  });
});

describe("SpeedMeter", () => {
  it("tokens per second of decode time, recent measurements weighing more", () => {
    const m = new SpeedMeter(10);
    expect(m.tokensPerSecond()).toBe(0);
    m.add(100, 1);
    expect(m.tokensPerSecond()).toBeCloseTo(100);
    m.add(2000, 10);
    expect(m.tokensPerSecond()).toBeGreaterThan(190);
    expect(m.tokensPerSecond()).toBeLessThan(200);
  });
});
