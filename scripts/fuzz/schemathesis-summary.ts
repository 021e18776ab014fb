// Summarises a schemathesis NDJSON report: requests sent, and answers by operation, status and error code.
// Exits 1 when an answer was a server fault (a 5xx other than 503, whose codes the document lists).
// Usage: tsx scripts/fuzz/schemathesis-summary.ts <report.ndjson>
import { readFileSync } from "node:fs";

interface Interaction {
  request: { method: string; uri: string };
  response?: { status_code: number; content?: { $base64?: string } };
}

const counts = new Map<string, number>();
let requests = 0;
let faults = 0;
for (const line of readFileSync(process.argv[2] ?? "", "utf8").split("\n")) {
  if (!line.includes('"ScenarioFinished"')) continue;
  const recorder = JSON.parse(line).ScenarioFinished.recorder as {
    label: string;
    interactions?: Record<string, Interaction>;
  };
  for (const i of Object.values(recorder.interactions ?? {})) {
    requests++;
    const status = i.response?.status_code ?? 0;
    if (status >= 500 && status !== 503) faults++;
    let code = "";
    try {
      const body = JSON.parse(Buffer.from(i.response?.content?.$base64 ?? "", "base64").toString("utf8"));
      code = body?.error?.code ?? body?.object ?? "";
    } catch {
      code = "(not JSON)";
    }
    const key = `${recorder.label.padEnd(22)} ${i.request.method.padEnd(7)} ${i.response?.status_code ?? "no answer"} ${code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}
console.log(`${requests} requests, ${faults} server faults (5xx other than 503)`);
for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(6)}  ${k}`);
process.exit(faults === 0 ? 0 : 1);
