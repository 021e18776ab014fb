// Strict JSON parser vs JSON.parse on decide bodies of 4 KiB and 256 KiB, same process.
// Run: npx tsx bench/strict-json.ts [--ms 2000]
import { cpus } from "node:os";
import { parseStrictJson } from "../schema/strict-json";

/** A realistic decide body of about `bytes` bytes: a JSON state of orders plus three questions. */
function decideBody(bytes: number): string {
  const questions = {
    topic: {
      type: "pick",
      instructions: "Which team should handle {{customer.tier}} ticket?",
      options: {
        billing: "Charges, refunds, invoices",
        shipping: null,
        technical: "App or API faults",
        other: null,
      },
    },
    urgent: { type: "check", instructions: "Is the customer at risk of churning?", min_confidence: 0.7 },
    mood: { type: "rate", instructions: "How upset is the customer?", levels: ["calm", "annoyed", "angry"] },
  };
  const orders: unknown[] = [];
  const state = {
    customer: { id: "cus_123", tier: "gold", name: "Zoë Ångström", since: "2021-04-01" },
    message: "My card was charged twice for order 1042 — please refund one charge. \ud83d\ude00",
    orders,
  };
  const body = { model: "svc-1", state, questions, fallback: "allow" };
  let i = 0;
  let size = new TextEncoder().encode(JSON.stringify(body)).byteLength;
  for (;;) {
    const o = {
      id: 1000 + i,
      sku: `SKU-${(i * 7919) % 100000}`,
      qty: (i % 5) + 1,
      price: Math.round(((i * 37) % 10000) * 1.01) / 100,
      paid: i % 3 !== 0,
      note: i % 4 === 0 ? 'gift wrap, "fragile"\n' : null,
      tags: ["a", "b\\c", "d/e"].slice(0, i % 4),
    };
    const grow = JSON.stringify(o).length + 1;
    if (size + grow > bytes) break;
    orders.push(o);
    size += grow;
    i++;
  }
  return JSON.stringify(body);
}

function opsPerSecond(fn: () => unknown, ms: number): number {
  for (let i = 0; i < 20; i++) fn(); // warm-up
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let k = 0; k < 10; k++) fn();
    n += 10;
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

const msArg = process.argv.indexOf("--ms");
const ms = msArg > 0 ? Number(process.argv[msArg + 1]) : 2000;
console.log(
  `node ${process.version}, ${cpus().length} cpus, ${new Date().toISOString()}, ${ms} ms per contender, best of 5 alternating rounds`,
);
console.log("| body | bytes | strict ops/s | JSON.parse ops/s | strict / JSON.parse | strict MB/s |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const [name, target] of [
  ["4 KiB", 4 * 1024],
  ["256 KiB", 256 * 1024],
] as const) {
  const text = decideBody(target);
  const r = parseStrictJson(text);
  if (!r.ok) throw new Error(`bench body rejected: ${r.code}`);
  // Alternating rounds, best of each: fairer on a shared, loaded machine.
  let strict = 0;
  let native = 0;
  for (let round = 0; round < 5; round++) {
    strict = Math.max(
      strict,
      opsPerSecond(() => parseStrictJson(text), ms / 5),
    );
    native = Math.max(
      native,
      opsPerSecond(() => JSON.parse(text), ms / 5),
    );
  }
  const bytes = new TextEncoder().encode(text).byteLength;
  console.log(
    `| ${name} | ${bytes} | ${strict.toFixed(0)} | ${native.toFixed(0)} | ${(strict / native).toFixed(2)} | ${((strict * bytes) / 1e6).toFixed(0)} |`,
  );
}
