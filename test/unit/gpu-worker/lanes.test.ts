import { describe, expect, it } from "vitest";
import { LaneScheduler, LiveBoard, SpeedMeter } from "../../../gpu-worker/src/lanes";
import { Mutex } from "../../../gpu-worker/src/lock";

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

describe("live before batch: evaluation items queue behind live decides (issue 31)", () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    return { open, opened };
  };

  it("batch requests hold at most all but one sequence of a lane: a live request starts at once beside them", async () => {
    const s = new LaneScheduler([["s0", "s1"]]);
    const g = gate();
    const started: string[] = [];
    const batch = [1, 2, 3].map((i) =>
      s.run(
        100,
        async () => {
          started.push(`batch${i}`);
          await g.opened;
        },
        "batch",
      ),
    );
    await tick();
    expect(started).toEqual(["batch1"]); // the second sequence stays free for live calls
    await s.run(10, async () => started.push("live"), "live");
    expect(started).toEqual(["batch1", "live"]);
    g.open();
    await Promise.all(batch);
    expect(started).toEqual(["batch1", "live", "batch2", "batch3"]);
  });

  it("a sequence freed while both classes wait goes to the live request, though the batch one came first", async () => {
    const s = new LaneScheduler([["only"]]);
    const g = gate();
    const order: string[] = [];
    const first = s.run(10, async () => g.opened, "live");
    const waiting = [
      s.run(10, async () => order.push("batch"), "batch"),
      s.run(10, async () => order.push("live"), "live"),
    ];
    g.open();
    await Promise.all([first, ...waiting]);
    expect(order).toEqual(["live", "batch"]);
  });

  it("a lane's decodes: waiting live decodes go before waiting batch ones (each class FIFO)", async () => {
    const m = new Mutex();
    const g = gate();
    const order: string[] = [];
    const held = m.run(() => g.opened);
    const runs = [
      m.run(async () => order.push("batch1"), "batch"),
      m.run(async () => order.push("live1"), "live"),
      m.run(async () => order.push("batch2"), "batch"),
      m.run(async () => order.push("live2"), "live"),
    ];
    g.open();
    await Promise.all([held, ...runs]);
    expect(order).toEqual(["live1", "live2", "batch1", "batch2"]);
  });

  /** Holds its sequence until the gate opens, then returns it. */
  const holding = (g: { opened: Promise<void> }) => async (seq: string) => {
    await g.opened;
    return seq;
  };

  it("a live request goes to the lane with the least live work, whatever batch work it holds; wait_tokens counts live work", async () => {
    const s = new LaneScheduler([
      ["a0", "a1"],
      ["b0", "b1"],
    ]);
    const g = gate();
    const held = holding(g);
    const batch = s.run(5000, held, "batch");
    const live = s.run(300, held, "live"); // tie on live work: the emptier lane
    expect(s.queued()).toEqual({ total: 5300, least: 0 });
    const next = s.run(10, async (seq) => seq, "live"); // lane a: no live work ahead, 5,000 batch tokens
    g.open();
    expect([await batch, await live, await next]).toEqual(["a1", "b1", "a0"]);
  });

  it("a lane of one sequence: a live request counts the batch work holding it", async () => {
    const s = new LaneScheduler([["a"], ["b"]]);
    const g = gate();
    const held = holding(g);
    const batch = s.run(5000, held, "batch");
    const live = s.run(300, held, "live");
    expect(s.queued()).toEqual({ total: 5300, least: 300 });
    const next = s.run(10, async (seq) => seq, "live");
    g.open();
    expect([await batch, await live, await next]).toEqual(["a", "b", "b"]);
  });
});

describe("a batch request decodes only while no live one is active in its lane (issue 31)", () => {
  it("its turn waits for the live requests of its lane to finish; in a lane of one sequence it never waits (no deadlock)", async () => {
    const s = new LaneScheduler([["s0", "s1"]]);
    let liveEnd!: () => void;
    const liveHeld = new Promise<void>((r) => {
      liveEnd = r;
    });
    const live = s.run(10, () => liveHeld, "live");
    let turned = false;
    const batch = s.run(
      100,
      async (_seq, adm) => {
        await adm.turn();
        turned = true;
      },
      "batch",
    );
    await tick();
    expect(turned).toBe(false);
    liveEnd();
    await Promise.all([live, batch]);
    expect(turned).toBe(true);

    const single = new LaneScheduler([["only"]]);
    let release!: () => void;
    const first = single.run(
      10,
      async (_seq, adm) => {
        await adm.turn();
        await new Promise<void>((r) => {
          release = r;
        });
      },
      "batch",
    );
    await tick();
    const waitingLive = single.run(10, async () => "live", "live");
    release();
    expect(await waitingLive).toBe("live");
    await first;
  });
});

describe("LaneScheduler.helper: a live request borrows a wholly idle lane, never a busy one", () => {
  it("runs on another lane with nothing admitted; its cost is that lane's pending work until it ends", async () => {
    const s = new LaneScheduler([
      ["a1", "a2"],
      ["b1", "b2"],
    ]);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const seen: string[] = [];
    const main = s.run(100, async (seq, adm) => {
      seen.push(seq);
      const helped = s.helper(adm.lane, 40, async (hseq) => {
        seen.push(hseq);
        await held;
      });
      expect(helped).toBeDefined();
      // A request arriving now sees both lanes busy: the helper's 40 tokens count in the other lane.
      expect(s.queued()).toEqual({ total: 140, least: 40 });
      release();
      await helped;
    });
    await main;
    expect(seen).toEqual(["a2", "b2"]);
    expect(s.queued()).toEqual({ total: 0, least: 0 });
  });

  it("refuses when every other lane has work admitted, or when there is no other lane", async () => {
    const s = new LaneScheduler([["a"], ["b"]]);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const busy = s.run(500, () => held);
    await s.run(50, async (_seq, adm) => {
      expect(s.helper(adm.lane, 10, async () => undefined)).toBeUndefined();
    });
    release();
    await busy;
    const one = new LaneScheduler([["only"]]);
    await one.run(50, async (_seq, adm) => {
      expect(one.helper(adm.lane, 10, async () => undefined)).toBeUndefined();
    });
  });
});

/** A live request held in `scheduler` until `end()`; `done` settles once it has finished. */
function holdLive(scheduler: LaneScheduler<string>): { done: Promise<void>; end: () => void } {
  let end!: () => void;
  const held = new Promise<void>((r) => {
    end = r;
  });
  return { done: scheduler.run(10, () => held, "live"), end };
}

describe("two weights files in one worker: a batch decode of one waits for the other's live work (issue 42)", () => {
  it("its turn waits while another scheduler on the same board has a live request; schedulers on their own boards do not wait", async () => {
    const board = new LiveBoard();
    const small = new LaneScheduler([["a0", "a1"]], board);
    const large = new LaneScheduler([["b0"]], board);
    const live = holdLive(large);
    const turned: string[] = [];
    const batch = small.run(
      100,
      async (_seq, adm) => {
        await adm.turn();
        turned.push("batch");
      },
      "batch",
    );
    // A live request of the scheduler itself never waits for the board.
    await small.run(10, async (_seq, adm) => {
      await adm.turn();
      turned.push("live");
    });
    await tick();
    expect(turned).toEqual(["live"]);
    live.end();
    await Promise.all([live.done, batch]);
    expect(turned).toEqual(["live", "batch"]);

    // A batch request is never held by its own scheduler's live work on the board: in a lane of one sequence
    // that live request waits for the batch one's sequence (no deadlock).
    const alone = new LaneScheduler([["only"]], board);
    let release!: () => void;
    const first = alone.run(
      10,
      async (_seq, adm) => {
        await adm.turn();
        await new Promise<void>((r) => {
          release = r;
        });
        await adm.turn();
      },
      "batch",
    );
    await tick();
    const waitingLive = alone.run(10, async () => "live", "live");
    release();
    expect(await waitingLive).toBe("live");
    await first;

    const apart = new LaneScheduler([["c0", "c1"]]);
    const otherLive = holdLive(large);
    const own = await apart.run(
      10,
      async (_seq, adm) => {
        await adm.turn();
        return "ran";
      },
      "batch",
    );
    expect(own).toBe("ran");
    otherLive.end();
    await otherLive.done;
  });

  it("a cancelled batch request stops waiting at once (its caller went away), so it frees its sequence", async () => {
    const board = new LiveBoard();
    const small = new LaneScheduler([["a0", "a1"]], board);
    const large = new LaneScheduler([["b0"]], board);
    const live = holdLive(large);
    const caller = new AbortController();
    let turned = false;
    const batch = small.run(
      100,
      async (_seq, adm) => {
        await adm.turn(caller.signal);
        turned = true;
      },
      "batch",
    );
    await tick();
    expect(turned).toBe(false);
    caller.abort();
    await batch;
    expect(turned).toBe(true);
    live.end();
    await live.done;
  });
});
