import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { getLlama, type Llama, type LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER_CODES, codeLine } from "../../../schema/answer-codes";
import { SVC1_CATEGORIES } from "../../../schema/tokenizer/data/svc1-vocab";
import { countTokens, encode } from "../../../schema/tokenizer/index";
// @ts-expect-error plain .mjs without types
import { defaultModelPath } from "../../../scripts/model-pull.mjs";
import { SWEEP_DIGEST, sweepDigest } from "../../support/token-sweep";

// The real GGUF's tokenizer through node-llama-cpp (vocab only, CPU): the reference our pure-JS ids must equal.
let llama: Llama;
let model: LlamaModel;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never" });
  model = await llama.loadModel({ modelPath: defaultModelPath(), vocabOnly: true });
});
afterAll(async () => {
  await model?.dispose();
  await llama?.dispose();
});

const CURATED: string[] = [
  "",
  " ",
  "  ",
  "   ",
  "\n",
  "\n\n",
  " \n",
  "\n ",
  "a \n b",
  "x  \n\n  y",
  "\r\n",
  "line one\r\nline two\r\n\r\n",
  "\t",
  "\t\tindented\tcode",
  "  hello  ",
  "hello   world",
  "don't I'm you're we've they'll she'd it's",
  "DON'T I'M YOU'RE WE'VE THEY'LL",
  "'s 't 're 've 'm 'll 'd",
  "''s '''",
  "rock'n'roll o'clock",
  "' s",
  "1",
  "12",
  "1234567890",
  "3.14159265358979323846264338327950288419716939937510",
  "9".repeat(500),
  " 42",
  "  42",
  "v1.2.3-beta+build.45",
  "2026-11-21T16:28:57.123Z",
  "$1,234.56 €99,99 ¥1000 ₹50",
  "١٢٣٤٥ ۱۲۳ ०१२ 〇一二 ①②③ ¼½¾ Ⅻ ²³",
  "Hello world <|im_start|> 12345 🙂",
  "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
  "<|endoftext|><repo_name><file_sep><jupyter_code>",
  "< |im_start| > <|im_start <|im_start|",
  "<||> <|> |><|",
  "👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽 🇩🇪🇫🇷 ❤️ ☺︎",
  "e\u0301 a\u0308 n\u0303 \u0301\u0301\u0301 Z\u0351\u0352\u0353",
  "Ünïcödé façade naïve coöperate",
  "日本語のテキストです。中文文本。한국어 텍스트",
  "שלום עולם مرحبا بالعالم",
  "\u202eevil\u202c \u200f\u200e",
  "zero\u200bwidth\u200c\u200djoin\ufeffbom",
  "\u00a0nbsp\u00a0\u00a0x \u2028\u2029 \u3000ideo\u3000",
  "\u0085next-line\u0085\u0085",
  "\u1680\u2000\u2001\u200a\u202f\u205f",
  "\u0000\u0001\u0004\u0006\u0013\u0014\u0016\u001d\u001f\u007f",
  "a\u0004b\u0006c",
  "lone \ud800 high, lone \udc00 low, end \ud83d",
  "\ud83d\ud83d\ude42 reversed \ude42\ud83d",
  "\u{40000}\u{80000}\u{bffff}\u{e0001}\u{f0000}\u{10ffff}",
  "\u{1d400}\u{1d7ce}\u{10400}\u{20000}",
  "ǅungla ǈ ǋ",
  "ß ẞ İ ı ﬁ ﬃ",
  "ÿ\u00ad\u00ac",
  "tab\tsep\tvalues\n1\t2\t3",
  '{"key": "value", "n": [1, 2.5, -3e10], "nested": {"a": null, "b": true}}',
  "function add(a, b) {\n  return a + b;\n}\n",
  "def f(x):\n    if x > 0:\n        return x ** 2\n    return -x\n",
  "SELECT id, name FROM users WHERE age >= 18 ORDER BY name;",
  '<div class="x">Hello &amp; <b>bye</b></div>',
  "https://example.com/path?q=1&r=two#frag",
  "user@example.com +49 (0)30 123456",
  "!!!???...,,,;;;:::---___===+++",
  "```ts\nconst x = 1;\n```",
  "C:\\Users\\name\\file.txt",
  "    four spaces then text",
  "trailing spaces   ",
  "trailing newline\n",
  "many\n\n\n\n\nnewlines",
  "mixed \t \n \r\n whitespace  \t",
  "a".repeat(3000),
  "ab ".repeat(1000),
  "🙂".repeat(300),
  "Ω≈ç√∫˜µ≤≥÷",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕿𝖊𝖝𝖙",
  "ｆｕｌｌｗｉｄｔｈ　ＡＢＣ１２３",
  "ⓐⓑⓒ ⒜⒝⒞ 🅰🅱",
  "\u0600\u0601\u061c\u06dd",
  "각",
  "ไทย ภาษา",
  "हिन्दी भाषा",
];

const WORDS =
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can who its said about out what up them into only time other some could new these two may first then do any like my now over such our man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three".split(
    " ",
  );

function prose(rng: (lo: number, hi: number) => number, words: number): string {
  let out = "";
  for (let i = 0; i < words; i++) {
    const w = WORDS[rng(0, WORDS.length - 1)]!;
    const r = rng(0, 99);
    out += (i === 0 || r < 8 ? w[0]!.toUpperCase() + w.slice(1) : w) + (r < 6 ? ". " : r < 10 ? ", " : " ");
    if (r === 99) out += `${rng(0, 100_000)} `;
    if (r === 98) out += "\n\n";
  }
  return out;
}

const PIECES = [
  " ",
  "  ",
  "\n",
  "\r\n",
  "\t",
  "'",
  "'s",
  "'ll",
  "re",
  "s",
  "1",
  "42",
  "٣",
  "a",
  "Z",
  "é",
  "e\u0301",
  "日",
  "🙂",
  "👨‍👩‍👧",
  "\u00a0",
  "\u2028",
  "\u0085",
  "\ufeff",
  "<|im_start|>",
  "<|",
  "|>",
  ".",
  "!!",
  "—",
  "\u200d",
  "ا",
  "\u202e",
  "\u0004",
  "\u{40000}",
  "word",
  "Word",
  "?",
  "(",
  ")",
  "{",
  '"',
];

function corpus(): string[] {
  const seed = 20_261_121;
  const out = [...CURATED];
  out.push(...fc.sample(fc.string({ unit: "binary", maxLength: 64 }), { numRuns: 1500, seed }));
  out.push(...fc.sample(fc.string({ unit: "grapheme", maxLength: 40 }), { numRuns: 500, seed: seed + 1 }));
  out.push(
    ...fc.sample(fc.string({ unit: "grapheme-ascii", maxLength: 80 }), { numRuns: 500, seed: seed + 2 }),
  );
  out.push(
    ...fc.sample(fc.string({ unit: fc.constantFrom(...PIECES), maxLength: 30 }), {
      numRuns: 2000,
      seed: seed + 3,
    }),
  );
  out.push(...fc.sample(fc.json({ maxDepth: 3 }), { numRuns: 300, seed: seed + 4 }));
  out.push(
    ...fc.sample(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 2)),
      { numRuns: 200, seed: seed + 5 },
    ),
  );
  const rng = mulberry32(seed);
  for (let i = 0; i < 300; i++) out.push(prose(rng, rng(5, 400)));
  return out;
}

/** Small deterministic PRNG: rng(lo, hi) is an integer in [lo, hi]. */
function mulberry32(seed: number): (lo: number, hi: number) => number {
  let a = seed >>> 0;
  return (lo, hi) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return lo + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * (hi - lo + 1));
  };
}

/** Strings that put each codepoint in letter, number, space and punctuation neighbourhoods. */
function codepointSweep(): string[] {
  const cps = new Set<number>();
  for (let cp = 0; cp < 0x3000; cp++) cps.add(cp);
  for (let i = 0; i < SVC1_CATEGORIES.length; i += 2) {
    const start = SVC1_CATEGORIES[i]!;
    for (const cp of [start - 1, start, start + 1]) if (cp >= 0 && cp < 0x110000) cps.add(cp);
  }
  for (let cp = 0x3000; cp < 0x110000; cp += 97) cps.add(cp);
  const list = [...cps].filter((cp) => cp < 0xd800 || cp > 0xdfff).sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < list.length; i += 128) {
    let s = "";
    for (const cp of list.slice(i, i + 128)) {
      const c = String.fromCodePoint(cp);
      s += `a${c}b ${c}${c}1${c}.${c} `;
    }
    out.push(s);
  }
  return out;
}

/** Up to `limit` real files (README.md, package.json, entry .js) of node_modules packages, in sorted order. */
function installedPackageFiles(limit: number): string[] {
  const root = join(process.cwd(), "node_modules");
  const out: string[] = [];
  for (const name of readdirSync(root).sort()) {
    if (name.startsWith(".") || name.startsWith("@")) continue;
    for (const file of ["README.md", "package.json", "index.js", "CHANGELOG.md"]) {
      const path = join(root, name, file);
      if (!existsSync(path) || statSync(path).size > 200_000) continue;
      out.push(readFileSync(path, "utf8"));
    }
    if (out.length >= limit) break;
  }
  return out;
}

function mismatches(texts: string[]): { text: string; llama: number[]; ours: number[] }[] {
  const bad: { text: string; llama: number[]; ours: number[] }[] = [];
  for (const text of texts) {
    const ref = [...model.tokenize(text, false)] as number[];
    const ours = encode(text);
    if (
      countTokens(text) !== ours.length ||
      ref.length !== ours.length ||
      ref.some((id, i) => id !== ours[i])
    )
      bad.push({ text, llama: ref, ours });
  }
  return bad;
}

describe("pure-JS svc-1 tokenizer equals llama.cpp (spec: the same count on the GPU path and the fallback path)", () => {
  it("a large nasty corpus (fast-check unicode, curated edge cases, prose, JSON, code) gives identical ids", () => {
    const texts = corpus();
    expect(texts.length).toBeGreaterThan(5000);
    const bad = mismatches(texts);
    expect(bad.slice(0, 5)).toEqual([]);
  });

  it("real documents (README, source and JSON files of the installed packages) give identical ids", () => {
    const texts = installedPackageFiles(250);
    expect(texts.length).toBeGreaterThan(100);
    expect(mismatches(texts).map((m) => m.text.slice(0, 80))).toEqual([]);
  });

  it("every codepoint class boundary (and all of U+0000–U+2FFF) splits as in llama.cpp", () => {
    const texts = codepointSweep();
    expect(texts.length).toBeGreaterThan(100);
    expect(
      mismatches(texts)
        .slice(0, 3)
        .map((m) => m.text.slice(0, 80)),
    ).toEqual([]);
  });

  it("llama.cpp's ids over a codepoint sweep give the digest the workerd test pins", () => {
    expect(sweepDigest((text) => model.tokenize(text, false))).toBe(SWEEP_DIGEST);
    expect(sweepDigest(encode)).toBe(SWEEP_DIGEST);
  });

  it("each answer code is one llama.cpp token alone and in its rendered line", () => {
    for (const code of ANSWER_CODES) {
      const id = [...model.tokenize(code, false)];
      expect(id).toHaveLength(1);
      const line = `Options:\n${codeLine(code, "Refund the order", "the customer asked twice")}`;
      const ids = [...model.tokenize(line, false)];
      expect(ids).toEqual(encode(line));
      expect(ids).toContain(id[0]);
      expect(model.detokenize(ids.slice(0, ids.indexOf(id[0]!)), false)).toBe("Options:\n");
    }
  });
});
