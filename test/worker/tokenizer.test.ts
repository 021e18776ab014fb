import { describe, expect, it } from "vitest";
import { ANSWER_CODES } from "../../schema/answer-codes";
import { countTokens, decode, encode, TOKENIZER_IDENTITY, warmTokenizer } from "../../schema/tokenizer/index";

// Every 37th codepoint in letter/space/digit/apostrophe neighbourhoods, folded into an FNV-1a digest of the
// ids. The same generator and constant are in test/integration/tokenizer-llama.test.ts, where llama.cpp's own
// ids must give this digest, and in test/worker/tokenizer.test.ts, where the pure-JS ids inside workerd must.
const SWEEP_DIGEST = "623881:edd2df85";
function* sweepTexts(): Generator<string> {
  let s = "";
  for (let cp = 0; cp < 0x110000; cp += 37) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    const c = String.fromCodePoint(cp);
    s += `a${c}b ${c}${c}1 '${c}s\n`;
    if (s.length > 4000) {
      yield s;
      s = "";
    }
  }
  yield s;
}
function sweepDigest(tokenize: (text: string) => ArrayLike<number>): string {
  let h = 0x811c9dc5;
  let n = 0;
  for (const text of sweepTexts()) {
    const ids = tokenize(text);
    for (let i = 0; i < ids.length; i++) h = Math.imul(h ^ ids[i]!, 0x01000193) >>> 0;
    n += ids.length;
  }
  return `${n}:${h.toString(16)}`;
}

describe("svc-1 tokenizer inside workerd (spec: tokens counted with the pinned tokenizer, same on every path)", () => {
  it("loads and encodes exactly as llama.cpp", () => {
    expect(warmTokenizer()).toBe(49_152);
    expect(TOKENIZER_IDENTITY.gguf.pre).toBe("smollm");
    const text = "Hello world <|im_start|> 12345 🙂";
    const ids = [19556, 905, 2067, 108, 306, 79, 3738, 108, 46, 216, 33, 34, 35, 36, 37, 47526];
    expect(encode(text)).toEqual(ids);
    expect(countTokens(text)).toBe(ids.length);
    expect(decode(ids)).toBe(text);
  });

  it("gives llama.cpp's ids over a codepoint sweep (digest pinned against llama.cpp in the integration test)", () => {
    expect(sweepDigest(encode)).toBe(SWEEP_DIGEST);
  }, 30_000);

  it("counts a 64 KiB mixed text and every answer code is one token", () => {
    const text = 'Grüße, 世界! Line 42\r\n\t{"a": [1, 2]} 👍🏽 '.repeat(1600);
    expect(countTokens(text)).toBe(encode(text).length);
    for (const code of ANSWER_CODES) expect(encode(code)).toHaveLength(1);
  }, 30_000);
});
