import { describe, expect, it } from "vitest";
import { svc1Readable } from "../../../gpu-worker/src/read-rule";
import { countTokens } from "../../../schema/tokenizer";

describe("svc-1.5.0 reads only what svc-1 bills: 'Tokens are counted with the pinned tokenizer of the model family'", () => {
  it("drops the six characters svc-1 has no token for, and reads unassigned planes 4–11 as U+FFFD", () => {
    expect(svc1Readable("a\u0004b\u0006c\u0013d\u0014e\u0016f\u001dg")).toBe("abcdefg");
    expect(svc1Readable(`x${String.fromCodePoint(0x40000)}${String.fromCodePoint(0xbffff)}y`)).toBe(
      "x\uFFFD\uFFFDy",
    );
    expect(countTokens("\u0004".repeat(60_000))).toBe(0);
  });

  it("leaves everything svc-1 counts as it is (text, emoji, CJK, other control characters, planes 1–3 and 12–16)", () => {
    const text = `Hi 🙂 我的包裹 \u0001\u0005\t ${String.fromCodePoint(0x1f600, 0x20000, 0xc0000, 0x10fffd)} 12345`;
    expect(svc1Readable(text)).toBe(text);
  });
});
