import { describe, expect, it } from "vitest";
import { ANSWER_CODES, answerCode, codeLine } from "../../../schema/answer-codes";
import { decode, encode } from "../../../schema/tokenizer/index";

// Contexts a code line appears in: first line, after a header line, after a description ending in spaces,
// tabs or a blank line, and labels that start with letters, digits, punctuation or non-Latin script.
const LABELS = ["yes", "Refund", "42 items", "(none)", "日本語", "✓ ok", "'quoted'", "A", "ZZ top"];
const BEFORE = ["", "Options:\n", "B. previous: text  \n", "x\t\n\n", "Levels (lowest first):\r\n"];

function codeIndex(ids: number[], before: string): number {
  for (let k = 0; k <= ids.length; k++) if (decode(ids.slice(0, k)) === before) return k;
  return -1;
}

describe("answer codes (spec: options or levels are shown with their answer codes)", () => {
  it("has 255 distinct codes, enough for the 255 options a pick may have", () => {
    expect(ANSWER_CODES).toHaveLength(255);
    expect(new Set(ANSWER_CODES).size).toBe(255);
    expect(ANSWER_CODES.slice(0, 4)).toEqual(["A", "B", "C", "D"]);
    expect(answerCode(254)).toBe(ANSWER_CODES[254]);
    expect(() => answerCode(255)).toThrow(RangeError);
  });

  it.each(ANSWER_CODES.map((c, i) => [i, c]))("code %i (%s) is a single token alone", (_, code) => {
    expect(encode(code)).toHaveLength(1);
  });

  it("every code is a single token in every rendered line context", () => {
    for (const code of ANSWER_CODES) {
      const [id] = encode(code);
      for (const before of BEFORE)
        for (const label of LABELS)
          for (const description of [null, "why: because."]) {
            const line = codeLine(code, label, description);
            const ids = encode(before + line);
            // Tokens before the code decode to exactly the preceding text; then the code's one token; then
            // the rest of the line tokenizes as if alone.
            const at = codeIndex(ids, before);
            expect(ids[at]).toBe(id);
            expect(ids.slice(at + 1)).toEqual(encode(line.slice(code.length)));
          }
    }
  }, 60_000);

  it("codeLine renders `<code>. <label>[: <description>]`", () => {
    expect(codeLine("A", "yes", null)).toBe("A. yes");
    expect(codeLine("AB", "no", "not at all")).toBe("AB. no: not at all");
  });
});
