// Tokenizer benchmark: throughput of the pure-JS svc-1 tokenizer vs node-llama-cpp's native tokenize on the
// same ~64 KiB English+mixed text, cold load/heap in Node (--expose-gc child), bundle size, and cold load,
// latency and process memory inside workerd (Miniflare). Usage: npx tsx bench/tokenizer.ts
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { getLlama } from "node-llama-cpp";
import { countTokens, encode, resetTokenizerCache, warmTokenizer } from "../schema/tokenizer/index";
// @ts-expect-error plain .mjs without types
import { defaultModelPath } from "../scripts/model-pull.mjs";

const ENTRY = new URL("../schema/tokenizer/index.ts", import.meta.url).pathname;
const DATA = new URL("../schema/tokenizer/data/svc1-vocab.ts", import.meta.url).pathname;

/** Deterministic ~64 KiB text: English prose with numbers, every fourth line mixed scripts, JSON, code, emoji. */
export function benchText(size = 65_536): string {
  const en =
    "The quick brown fox jumps over the lazy dog. In 2024, revenue grew 12.5% to $3,400,000 while costs fell. ";
  const mixed =
    'Grüße aus München! 日本語のテキスト。 مرحبا {"id": 12, "tags": ["a", "b"]} 👍🏽 naïve café\n\tcode(x) => x * 2;\r\n';
  let text = "";
  for (let i = 0; text.length < size; i++)
    text += `${i % 4 === 3 ? mixed : en}Item ${i}: note ${(i * 7919) % 10007}. `;
  return text.slice(0, size);
}

function timeIt(f: () => number, budgetMs = 2_000): { ms: number; runs: number } {
  f();
  const t0 = performance.now();
  let runs = 0;
  while (performance.now() - t0 < budgetMs) {
    f();
    runs++;
  }
  return { ms: (performance.now() - t0) / runs, runs };
}

async function throughput(text: string) {
  const llama = await getLlama({ gpu: false, build: "never" });
  const model = await llama.loadModel({ modelPath: defaultModelPath(), vocabOnly: true });
  const tokens = model.tokenize(text, false).length;
  const same = JSON.stringify([...model.tokenize(text, false)]) === JSON.stringify(encode(text));
  const rows = {
    native: timeIt(() => model.tokenize(text, false).length),
    encodeCold: timeIt(() => {
      resetTokenizerCache();
      return encode(text).length;
    }),
    encodeWarm: timeIt(() => encode(text).length),
    countCold: timeIt(() => {
      resetTokenizerCache();
      return countTokens(text);
    }),
    countWarm: timeIt(() => countTokens(text)),
  };
  await model.dispose();
  await llama.dispose();
  return { tokens, same, rows };
}

// Runs in a plain `node --expose-gc` child on the esbuild bundle (no tsx in the picture): cold import, table
// build and first-count time, and retained heap + ArrayBuffers after full GCs.
const CHILD = `
const gc = globalThis.gc;
const mem = () => { gc(); gc(); const m = process.memoryUsage(); return { heap: m.heapUsed, buffers: m.arrayBuffers }; };
const m0 = mem();
let t = performance.now();
const tok = await import(process.argv[1]);
const importMs = performance.now() - t;
const m1 = mem();
t = performance.now();
tok.warmTokenizer();
const warmMs = performance.now() - t;
const m2 = mem();
t = performance.now();
tok.countTokens(process.argv[2]);
const firstCountMs = performance.now() - t;
const m3 = mem();
console.log(JSON.stringify({ importMs, warmMs, firstCountMs, m0, m1, m2, m3 }));
`;

async function bundle(): Promise<string> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    write: false,
  });
  return out.outputFiles[0]!.text;
}

function childRssKb(): Map<number, number> {
  const out = execFileSync("ps", ["-o", "pid=,rss=,comm=", "--ppid", String(process.pid)], {
    encoding: "utf8",
  });
  const map = new Map<number, number>();
  for (const line of out.trim().split("\n")) {
    const [pid, rss, comm] = line.trim().split(/\s+/);
    if (comm?.includes("workerd")) map.set(Number(pid), Number(rss));
  }
  return map;
}

async function workerd(tokenizerJs: string, text: string) {
  const worker = `${tokenizerJs.replace(/export\s*\{[^}]*\};?\s*$/, "")}
export default { async fetch(req) {
  const path = new URL(req.url).pathname;
  if (path === "/warm") return new Response(String(warmTokenizer()));
  if (path === "/count") return new Response(String(countTokens(await req.text())));
  return new Response("ok");
} };`;
  const names = /export\s*\{([^}]*)\}/.exec(tokenizerJs)![1]!;
  const alias = Object.fromEntries(
    names.split(",").map((p) => {
      const [local, exported] = p.trim().split(/\s+as\s+/);
      return [exported ?? local, local];
    }),
  );
  const script = worker
    .replace("warmTokenizer()", `${alias.warmTokenizer}()`)
    .replace("countTokens(await", `${alias.countTokens}(await`);
  const runOne = async (src: string) => {
    const before = new Set(childRssKb().keys());
    const t0 = performance.now();
    const mf = new Miniflare({ modules: true, script: src, compatibilityDate: "2025-09-01" });
    await mf.ready;
    const readyMs = performance.now() - t0;
    const url = "http://bench.test";
    const rtt = async (path: string, body?: string) => {
      const t = performance.now();
      const res = await mf.dispatchFetch(url + path, body ? { method: "POST", body } : {});
      await res.text();
      return performance.now() - t;
    };
    const noop: number[] = [];
    for (let i = 0; i < 10; i++) noop.push(await rtt("/"));
    const result: Record<string, number> = { readyMs, noopMs: median(noop) };
    const pid = [...childRssKb().keys()].find((p) => !before.has(p));
    result.rssIdleKb = pid ? (childRssKb().get(pid) ?? 0) : 0;
    if (src !== EMPTY_WORKER) {
      result.firstWarmMs = await rtt("/warm");
      result.secondWarmMs = await rtt("/warm");
      result.rssWarmKb = pid ? (childRssKb().get(pid) ?? 0) : 0;
      result.firstCountMs = await rtt("/count", text);
      const runs: number[] = [];
      for (let i = 0; i < 10; i++) runs.push(await rtt("/count", text));
      result.countMs = median(runs);
      result.rssAfterKb = pid ? (childRssKb().get(pid) ?? 0) : 0;
    }
    await mf.dispose();
    return result;
  };
  const empty = await runOne(EMPTY_WORKER);
  const tok = await runOne(script);
  return { empty, tok };
}

const EMPTY_WORKER = `export default { async fetch() { return new Response("ok"); } };`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f = (n: number, d = 1) => n.toFixed(d);

async function main() {
  const text = benchText();
  const bytes = Buffer.byteLength(text);
  const js = await bundle();
  const dir = mkdtempSync(join(tmpdir(), "svc-tok-bench-"));
  const bundlePath = join(dir, "tokenizer.mjs");
  writeFileSync(bundlePath, js);
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", "--input-type=module", "-e", CHILD, pathToFileURL(bundlePath).href, text],
    { encoding: "utf8" },
  );
  rmSync(dir, { recursive: true, force: true });
  const heap = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
  const { tokens, same, rows } = await throughput(text);
  warmTokenizer();
  const wd = await workerd(js, text);
  const mb = (b: number) => f(b / 1024 / 1024, 2);
  const tps = (ms: number) => Math.round((tokens / ms) * 1000).toLocaleString("en");
  const nativeMs = rows.native.ms;
  const lines = [
    `Machine: ${execFileSync("nproc", { encoding: "utf8" }).trim()} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Text: ${bytes} bytes (${text.length} UTF-16 units) of English prose with numbers, every fourth line German/Japanese/Arabic/JSON/code/emoji; ${tokens} tokens; pure-JS ids identical to llama.cpp: ${same}.`,
    "",
    "| Tokenizer run (same text) | ms per text | tokens/s | vs native |",
    "|---|---|---|---|",
    `| node-llama-cpp \`model.tokenize(text, false)\` (native, vocab-only model) | ${f(nativeMs)} | ${tps(nativeMs)} | 1.00× |`,
    ...(
      [
        ["`encode`, cold piece cache", rows.encodeCold.ms],
        ["`encode`, warm piece cache", rows.encodeWarm.ms],
        ["`countTokens`, cold piece cache", rows.countCold.ms],
        ["`countTokens`, warm piece cache", rows.countWarm.ms],
      ] as const
    ).map(([name, ms]) => `| pure JS ${name} | ${f(ms)} | ${tps(ms)} | ${f(nativeMs / ms, 2)}× |`),
    "",
    `Node (plain \`node --expose-gc\` child importing the minified bundle; heap and ArrayBuffers after two \`gc()\`): import of the tokenizer incl. its data module ${f(heap.importMs)} ms, +${mb(heap.m1.heap - heap.m0.heap)} MB heap; building the merge table (\`warmTokenizer\`) ${f(heap.warmMs)} ms, +${mb(heap.m2.heap - heap.m1.heap)} MB heap +${mb(heap.m2.buffers - heap.m1.buffers)} MB ArrayBuffers; first 64 KiB count ${f(heap.firstCountMs)} ms, piece cache then +${mb(heap.m3.heap - heap.m2.heap)} MB heap (cache capped at 50,000 pieces).`,
    "",
    `Bundle (esbuild, minified ESM of schema/tokenizer): ${Math.round(js.length / 1024)} KiB, ${Math.round(gzipSync(js).length / 1024)} KiB gzipped; the generated data module is ${Math.round(statSync(DATA).size / 1024)} KiB of UTF-8 source (limit of concern: ~1 MB per module/message).`,
    "",
    "workerd (Miniflare, wall clock from Node, medians of 10; workerd freezes `performance.now()` between I/O, so inside-isolate timers cannot measure CPU):",
    "",
    "| | empty worker | tokenizer worker |",
    "|---|---|---|",
    `| Miniflare start to ready | ${f(wd.empty.readyMs!)} ms | ${f(wd.tok.readyMs!)} ms |`,
    `| no-op request round trip | ${f(wd.empty.noopMs!, 2)} ms | ${f(wd.tok.noopMs!, 2)} ms |`,
    `| workerd RSS idle | ${mb(wd.empty.rssIdleKb! * 1024)} MB | ${mb(wd.tok.rssIdleKb! * 1024)} MB |`,
    `| first \`warmTokenizer()\` request (builds tables) / second | | ${f(wd.tok.firstWarmMs!)} / ${f(wd.tok.secondWarmMs!, 2)} ms |`,
    `| workerd RSS after warm | | ${mb(wd.tok.rssWarmKb! * 1024)} MB |`,
    `| \`countTokens\` of the 64 KiB text, first (cold cache) / median after | | ${f(wd.tok.firstCountMs!)} / ${f(wd.tok.countMs!)} ms (minus the no-op round trip: ${f(wd.tok.countMs! - wd.tok.noopMs!)} ms) |`,
    `| workerd RSS after counting | | ${mb(wd.tok.rssAfterKb! * 1024)} MB |`,
  ];
  console.log(lines.join("\n"));
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
