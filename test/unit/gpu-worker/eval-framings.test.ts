import { describe, expect, it } from "vitest";
import { loadSet } from "../../../gpu-worker/eval/sets";
import { FRAMINGS, getFraming, outcomes } from "../../../gpu-worker/src/framings";

const items = loadSet("computed");
const sample = ["pick", "rate", "check"].flatMap((t) => items.filter((i) => i.type === t).slice(0, 20));
const SCAFFOLD = new Set(["<|im_start|>", "<|im_end|>"]);

describe("framings", () => {
  it.each(Object.keys(FRAMINGS))(
    "%s: one continuation per outcome; `special` pieces are scaffolding only, never caller text",
    (id) => {
      const f = getFraming(id);
      for (const it of sample) {
        expect(f.continuations(it.question)).toHaveLength(outcomes(it.question).length);
        for (const p of [...f.statePrefix(it.state), ...f.questionPrompt(it.question)]) {
          if (p.special) expect(SCAFFOLD.has(p.text)).toBe(true);
        }
        const plain = f
          .statePrefix(it.state)
          .filter((p) => !p.special)
          .map((p) => p.text)
          .join("");
        expect(plain).toContain(it.state);
      }
    },
  );

  it("a composite reads exactly what its part for the question's type reads (so the parts' scores are its scores)", () => {
    for (const f of Object.values(FRAMINGS).filter((x) => x.parts)) {
      for (const it of sample) {
        const part = getFraming(f.parts?.[it.type] as string);
        expect(f.statePrefix(it.state)).toEqual(part.statePrefix(it.state));
        expect(f.questionPrompt(it.question)).toEqual(part.questionPrompt(it.question));
        expect(f.continuations(it.question)).toEqual(part.continuations(it.question));
      }
    }
  });

  it("check continuations are [yes-like, no-like] in that order", () => {
    const q = sample.find((i) => i.type === "check")?.question;
    if (!q) throw new Error("no check item");
    for (const f of Object.values(FRAMINGS)) {
      const [y, n] = f.continuations(q).map((c) => c.trim().toLowerCase());
      expect(["yes", "true", "correct", "a"]).toContain(y);
      expect(["no", "false", "incorrect", "b"]).toContain(n);
    }
  });
});
