import type { Incident, IncidentStore } from "../stores/alert-incidents";
import type { CheckResult } from "./definitions";

/** What a check changed: incidents opened and resolved (their notifications are sent after). */
export interface Transitions {
  opened: string[];
  resolved: string[];
}

/**
 * Applies one check to its store: a firing instance without an incident starts one (pending until it held
 * `forMs`, then open); an open incident whose instance no longer fires is resolved; a pending one that
 * cleared before opening is forgotten. An unobservable check (null) changes nothing.
 */
export async function applyCheck(
  store: IncidentStore,
  check: CheckResult,
  now: number,
): Promise<Transitions> {
  const out: Transitions = { opened: [], resolved: [] };
  if (check.firing === null) return out;
  const current = new Map((await store.unresolved(check.alert)).map((i) => [i.key, i]));
  for (const f of check.firing) {
    const known = current.get(f.key);
    current.delete(f.key);
    const incident: Incident = known
      ? { ...known, summary: f.summary, detail: f.detail, lastSeenAt: now }
      : {
          key: f.key,
          alert: check.alert,
          summary: f.summary,
          detail: f.detail,
          pendingSince: now,
          openedAt: null,
          lastSeenAt: now,
          resolvedAt: null,
          openSentAt: null,
          resolveSentAt: null,
        };
    if (incident.openedAt === null && now - incident.pendingSince >= check.forMs) {
      incident.openedAt = now;
      out.opened.push(f.key);
    }
    await store.save(incident);
  }
  for (const gone of current.values()) {
    if (gone.openedAt === null) await store.remove(gone);
    else {
      await store.save({ ...gone, resolvedAt: now });
      out.resolved.push(gone.key);
    }
  }
  return out;
}

/** Incidents of this isolate's memory: where the two stores' alerts go when both stores are down. */
export function memoryIncidents(): IncidentStore {
  const rows = new Map<string, Incident>();
  return {
    unresolved: async (alert) => [...rows.values()].filter((i) => i.alert === alert && i.resolvedAt === null),
    save: async (i) => {
      const saved = { ...i, id: i.key };
      if (saved.resolvedAt !== null && saved.resolveSentAt !== null) rows.delete(i.key);
      else rows.set(i.key, saved);
      return saved;
    },
    remove: async (i) => void rows.delete(i.key),
    unsent: async () =>
      [...rows.values()].filter(
        (i) =>
          (i.openedAt !== null && i.openSentAt === null) ||
          (i.resolvedAt !== null && i.openedAt !== null && i.resolveSentAt === null),
      ),
  };
}
