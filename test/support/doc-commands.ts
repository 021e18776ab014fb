// Issue 54: the docs' local commands, run as written. A fenced block right after the marker line
// `<!-- docs-check: run after npm start -->` is extracted from the Markdown and run by bash in the folder that
// holds `.local/`, with `curl` wrapped to record each call (method, URL, status, body) and to fail the block on
// an HTTP error or no answer.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The marker line a runnable block follows (an HTML comment: invisible on the rendered page). */
export const DOCS_CHECK_MARKER = "<!-- docs-check: run after npm start -->";

/** The port the docs write; the test's stack listens elsewhere, so it is replaced by the stack's base URL. */
export const DOCUMENTED_BASE_URL = "http://127.0.0.1:8787";

/** One marked block: where it is (file and line of its opening fence) and its text. */
export interface DocBlock {
  where: string;
  text: string;
}

/** One `curl` a block ran. */
export interface CurlCall {
  method: string;
  url: string;
  status: number;
  body: string;
}

/** The marked blocks of a Markdown file (the fenced block right after each marker line). */
export function markedBlocks(file: string, name: string): DocBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: DocBlock[] = [];
  lines.forEach((line, i) => {
    if (line.trim() !== DOCS_CHECK_MARKER) return;
    const open = lines[i + 1] ?? "";
    if (!/^```/.test(open)) throw new Error(`${name}:${i + 1}: the marker is not followed by a fenced block`);
    const end = lines.findIndex((l, j) => j > i + 1 && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${name}:${i + 2}: the fenced block never closes`);
    blocks.push({ where: `${name}:${i + 2}`, text: lines.slice(i + 2, end).join("\n") });
  });
  return blocks;
}

// Records each call as <n>.args (NUL-separated arguments), <n>.body and <n>.status; prints the body as curl
// would (so `$(curl …)` and pipes still work) and fails on an HTTP status ≥ 400 or no answer.
const CURL_WRAPPER = `
curl() {
  local rec status
  rec="$DOCS_CHECK_LOG/$(date +%s%N)"
  printf '%s\\0' "$@" > "$rec.args"
  status=$(command curl -o "$rec.body" -w '%{http_code}' "$@") || status="000"
  echo "$status" > "$rec.status"
  cat "$rec.body"
  if [ "$status" = "000" ] || [ "$status" -ge 400 ]; then
    echo "docs-check: curl answered $status: $*" >&2
    return 1
  fi
}
set -euo pipefail
`;

/**
 * Runs `block` with bash in `cwd` (the folder holding `.local/`), the documented base URL replaced by `baseUrl`.
 * Resolves with bash's exit code, its output and every curl call in order.
 */
export async function runBlock(
  block: DocBlock,
  cwd: string,
  baseUrl: string,
): Promise<{ code: number; stdout: string; stderr: string; calls: CurlCall[] }> {
  const log = mkdtempSync(join(tmpdir(), "svc-docs-check-"));
  const script = CURL_WRAPPER + block.text.replaceAll(DOCUMENTED_BASE_URL, baseUrl);
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        "bash",
        ["-c", script],
        { cwd, env: { ...process.env, DOCS_CHECK_LOG: log }, maxBuffer: 64 << 20, timeout: 240_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) || 1 : 0, stdout, stderr }),
      );
    },
  );
  const calls = readdirSync(log)
    .filter((f) => f.endsWith(".args"))
    .sort()
    .map((f) => readCall(join(log, f.replace(/\.args$/, ""))));
  rmSync(log, { recursive: true, force: true });
  return { code, stdout, stderr, calls };
}

function readCall(rec: string): CurlCall {
  const args = readFileSync(`${rec}.args`, "utf8").split("\0").slice(0, -1);
  const flag = args.findIndex((a) => a === "-X" || a === "--request");
  const sends = args.some((a) => /^(-d|--data|--data-binary|--data-raw|--json)$/.test(a));
  const method = flag >= 0 ? args[flag + 1]! : sends ? "POST" : "GET";
  const url = args.find((a) => /^https?:\/\//.test(a)) ?? "";
  const read = (ext: string) => {
    try {
      return readFileSync(`${rec}.${ext}`, "utf8");
    } catch {
      return "";
    }
  };
  return { method, url, status: Number(read("status").trim() || 0), body: read("body") };
}
