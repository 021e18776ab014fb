import { describe, expect, it } from "vitest";
import { ANSWER_CODES } from "../../../schema/answer-codes";
import {
  countTokens,
  decode,
  encode,
  TOKENIZER_IDENTITY,
  warmTokenizer,
} from "../../../schema/tokenizer/index";
import { SWEEP_DIGEST, sweepDigest } from "../../support/token-sweep";

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
