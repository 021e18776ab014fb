// Derives the pinned svc-1 tokenizer data from the GGUF (metadata only, no weights) and from the unicode
// tables of the llama.cpp release node-llama-cpp ships, and writes schema/tokenizer/data/svc1-vocab.ts.
// Usage: npm run tokenizer:build [-- --check]   (--check: fail if the committed file differs)
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readGgufFileInfo } from "node-llama-cpp";
import { bytesToUnicode } from "../schema/tokenizer/byte-map";
// @ts-expect-error plain .mjs without types
import { DEFAULT_MODEL, defaultModelPath, sha256File } from "./model-pull.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Where the generated data module lives. */
export const DATA_MODULE_PATH = join(root, "schema", "tokenizer", "data", "svc1-vocab.ts");

/** Codepoint classes the pre-tokenizer needs (collapsed from llama.cpp's unicode flags). */
export const CLASS = { other: 0, letter: 1, number: 2, whitespace: 3 } as const;

/** Everything the Worker-side tokenizer needs, plus identity for mismatch detection. */
export interface TokenizerData {
  family: string;
  gguf: { file: string; sha256: string; model: string; pre: string };
  llamaCpp: { release: string; unicodeDataSha256: string };
  vocabSha256: string;
  tokenCount: number;
  mergeCount: number;
  mergeResultBase: number;
  controlTokens: number[];
  byteIds: number[];
  tokens: string;
  merges: string;
  categories: number[];
}

function llamaCppDir(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("node-llama-cpp"));
  while (!existsSync(join(dir, "llama", "llama.cpp.info.json"))) {
    if (dirname(dir) === dir) throw new Error("node-llama-cpp's llama/ folder not found");
    dir = dirname(dir);
  }
  return join(dir, "llama");
}

/** Reads src/unicode-data.cpp of the llama.cpp release bundled with node-llama-cpp (a git bundle). */
export function readLlamaUnicodeData(): { source: string; release: string } {
  const dir = llamaCppDir();
  const info = JSON.parse(readFileSync(join(dir, "llama.cpp.info.json"), "utf8")) as { tag: string };
  const tmp = mkdtempSync(join(tmpdir(), "svc-llama-src-"));
  try {
    execFileSync("git", ["clone", "-q", "--no-checkout", join(dir, "gitRelease.bundle"), tmp], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const source = execFileSync("git", ["-C", tmp, "show", "HEAD:src/unicode-data.cpp"], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return { source, release: info.tag };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Collapses llama.cpp's flag ranges + whitespace set into [start, class, start, class, ...]. */
export function deriveCategories(unicodeDataCpp: string): number[] {
  const block = (name: string) => {
    const at = unicodeDataCpp.indexOf(name);
    if (at < 0) throw new Error(`unicode-data.cpp: ${name} not found`);
    return unicodeDataCpp.slice(at, unicodeDataCpp.indexOf("};", at));
  };
  const ranges = [...block("unicode_ranges_flags").matchAll(/\{0x([0-9A-F]+), 0x([0-9A-F]+)\}/gi)].map(
    (m) => [Number.parseInt(m[1]!, 16), Number.parseInt(m[2]!, 16)] as const,
  );
  const whitespace = [...block("unicode_set_whitespace").matchAll(/0x([0-9A-F]+)/gi)]
    .map((m) => Number.parseInt(m[1]!, 16))
    .sort((a, b) => a - b);
  if (ranges[0]?.[0] !== 0 || ranges.at(-1)?.[0] !== 0x110000) throw new Error("unexpected flag ranges");
  const classOf = new Uint8Array(0x110000);
  for (let i = 0; i + 1 < ranges.length; i++) {
    const [start, flags] = ranges[i]!;
    const cls = flags & 0x0004 ? CLASS.letter : flags & 0x0002 ? CLASS.number : CLASS.other;
    classOf.fill(cls, start, ranges[i + 1]![0]);
  }
  for (const cp of whitespace) {
    if (classOf[cp] !== CLASS.other) throw new Error(`whitespace U+${cp.toString(16)} is also letter/number`);
    classOf[cp] = CLASS.whitespace;
  }
  const out: number[] = [];
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp === 0 || classOf[cp] !== classOf[cp - 1]) out.push(cp, classOf[cp]!);
  }
  return out;
}

/** Reads the GGUF's tokenizer metadata and the unicode tables; validates the assumptions the runtime makes. */
export async function deriveTokenizerData(modelPath: string = defaultModelPath()): Promise<TokenizerData> {
  const info = await readGgufFileInfo(modelPath, { readTensorInfo: false });
  // biome-ignore lint/suspicious/noExplicitAny: GGUF metadata is untyped here
  const g = (info.metadata as any).tokenizer.ggml;
  const tokens: string[] = g.tokens;
  const merges: string[] = g.merges;
  const types: number[] = g.token_type;
  if (g.model !== "gpt2" || g.pre !== "smollm") throw new Error(`unexpected tokenizer ${g.model}/${g.pre}`);
  const idOf = new Map(tokens.map((t, i) => [t, i]));
  if (idOf.size !== tokens.length) throw new Error("duplicate token strings");
  if (tokens.some((t) => t.includes("\n"))) throw new Error("a token contains a newline (separator)");
  const controlTokens: number[] = [];
  types.forEach((t, i) => {
    if (t === 3) controlTokens.push(i);
    else if (t !== 1) throw new Error(`token ${i} has type ${t}; only normal/control are supported`);
  });
  const mergeResultBase = idOf.get(merges[0]!.replace(" ", ""))!;
  const pairs = new Uint16Array(merges.length * 2);
  merges.forEach((m, rank) => {
    const parts = m.split(" ");
    const a = idOf.get(parts[0]!);
    const b = idOf.get(parts[1]!);
    if (parts.length !== 2 || a === undefined || b === undefined) throw new Error(`bad merge ${rank}: ${m}`);
    if (idOf.get(parts[0]! + parts[1]!) !== mergeResultBase + rank)
      throw new Error(`merge ${rank} result id`);
    pairs[rank * 2] = a;
    pairs[rank * 2 + 1] = b;
  });
  const pairBytes = new Uint8Array(pairs.length * 2);
  pairs.forEach((v, i) => {
    pairBytes[i * 2] = v & 0xff;
    pairBytes[i * 2 + 1] = v >> 8;
  });
  const tokenText = tokens.join("\n");
  const unicode = readLlamaUnicodeData();
  return {
    family: "svc-1",
    gguf: { file: DEFAULT_MODEL.file, sha256: await sha256File(modelPath), model: g.model, pre: g.pre },
    llamaCpp: {
      release: unicode.release,
      unicodeDataSha256: createHash("sha256").update(unicode.source).digest("hex"),
    },
    vocabSha256: createHash("sha256").update(tokenText).update("\0").update(merges.join("\n")).digest("hex"),
    tokenCount: tokens.length,
    mergeCount: merges.length,
    mergeResultBase,
    controlTokens,
    byteIds: bytesToUnicode().map((ch) => idOf.get(String.fromCharCode(ch)) ?? -1),
    tokens: tokenText,
    merges: Buffer.from(pairBytes).toString("base64"),
    categories: deriveCategories(unicode.source),
  };
}

/** The data module's source text (deterministic for equal data). */
export function renderDataModule(data: TokenizerData): string {
  const { tokens, merges, categories, byteIds, ...meta } = data;
  return [
    "// Generated by scripts/build-tokenizer.ts (npm run tokenizer:build). Do not edit.",
    "// tokens: token strings joined by \\n; merges: base64 of little-endian uint16 (left, right) id pairs in",
    "// rank order, the result of merge r is token mergeResultBase + r; categories: [start, class, ...] with",
    "// class 0 other, 1 letter, 2 number, 3 whitespace (llama.cpp's unicode flags); byte ids: the token of",
    "// each byte (GPT-2 bytes-to-unicode), -1 where the vocabulary has none (llama.cpp drops such bytes).",
    `export const SVC1_META = ${JSON.stringify(meta)} as const;`,
    `export const SVC1_BYTE_IDS: readonly number[] = ${JSON.stringify(byteIds)};`,
    `export const SVC1_TOKENS: string = ${JSON.stringify(tokens)};`,
    `export const SVC1_MERGES: string = ${JSON.stringify(merges)};`,
    `export const SVC1_CATEGORIES: readonly number[] = ${JSON.stringify(categories)};`,
    "",
  ].join("\n");
}

async function main() {
  const check = process.argv.includes("--check");
  const text = renderDataModule(await deriveTokenizerData());
  if (check) {
    const same = readFileSync(DATA_MODULE_PATH, "utf8") === text;
    console.log(same ? "tokenizer data up to date" : "tokenizer data differs from a fresh derivation");
    process.exit(same ? 0 : 1);
  }
  writeFileSync(DATA_MODULE_PATH, text);
  console.log(`wrote ${DATA_MODULE_PATH} (${Buffer.byteLength(text)} bytes)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`tokenizer:build failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  });
}
