// The resident memory of the workerd process Miniflare runs the edge in, read from /proc (Linux only).
import { readdirSync, readFileSync } from "node:fs";

function stat(pid: number): { comm: string; ppid: number; start: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const rest = text.slice(close + 2).split(" ");
    return { comm, ppid: Number(rest[1]), start: Number(rest[19]) };
  } catch {
    return null;
  }
}

/** The newest `workerd` process below this one (the edge started last). */
export function workerdPid(): number {
  const all = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .map((pid) => ({ pid, s: stat(pid) }))
    .filter((p): p is { pid: number; s: NonNullable<ReturnType<typeof stat>> } => p.s !== null);
  const parent = new Map(all.map((p) => [p.pid, p.s.ppid]));
  const mine = (pid: number) => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p))
      if (p === process.pid) return true;
    return false;
  };
  const found = all
    .filter((p) => p.s.comm === "workerd" && mine(p.pid))
    .sort((a, b) => b.s.start - a.s.start);
  if (!found[0]) throw new Error("no workerd process below this one");
  return found[0].pid;
}

/** VmRSS of a process, in bytes. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; answers the samples (ms since start, bytes). */
export function sampleRss(pid: number, everyMs = 100): { stop(): Array<[number, number]> } {
  const t0 = performance.now();
  const samples: Array<[number, number]> = [[0, rssBytes(pid)]];
  const timer = setInterval(() => {
    try {
      samples.push([performance.now() - t0, rssBytes(pid)]);
    } catch {
      // the process is gone: the samples end here
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      samples.push([performance.now() - t0, rssBytes(pid)]);
      return samples;
    },
  };
}
