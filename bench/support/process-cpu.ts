import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux this runs on). */
const TICK_MS = 10;

function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may itself hold spaces and parentheses: state is [0], ppid [1].
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The `workerd` processes this process started (each Miniflare instance runs one), oldest first: the order
 * the benches start their Workers in. Linux only (/proc).
 */
export function childWorkerdPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (Number(statFields(pid)[1]) !== process.pid) continue;
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd")) out.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return out.sort((a, b) => Number(statFields(a)[19]) - Number(statFields(b)[19]) || a - b);
}

/** CPU time (user + system, every thread) a process has used so far, ms, at the kernel's 10-ms tick. */
export function processCpuMs(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}
