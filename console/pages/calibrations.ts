import { ApiError, api, errorText } from "../api";
import { METHOD_TEXT, questionSummary, statusText } from "../calibration-words";
import { CALIBRATIONS, type ListedCalibration } from "../calibrations";
import { confirmDialog } from "../confirm";
import { h, notice } from "../dom";
import { when } from "../format";

const EVALUATIONS = "/v1/console/evaluations";
const fixed = (x: number) => x.toFixed(3);

interface Evaluation {
  id: string;
  name: string;
}
interface EvaluationItem {
  index: number;
  state: unknown;
  questions: Record<string, unknown>;
  expected: Record<string, string | boolean>;
}

interface Model {
  id: string;
  alias: string | null;
  served_by: "gpu" | "fallback";
  status: "active" | "retired";
}

/** Alias → the exact GPU version it answers with now (GET /v1/console/models, the twin of GET /v1/models). */
async function aliases(): Promise<Map<string, string>> {
  const list = await api<{ data: Model[] }>("GET", "/v1/console/models");
  return new Map(
    list.data.flatMap((m) =>
      m.alias && m.served_by === "gpu" && m.status === "active" ? [[m.alias, m.id]] : [],
    ),
  );
}

/** The alias of a version's family (`svc-1.3.0` → `svc-1`) and the version it answers with now, if another. */
function aliasMoved(model: string, now: Map<string, string>): { alias: string; now: string } | null {
  const major = /^svc-(\d+)\.\d+\.\d+$/.exec(model)?.[1];
  if (major === undefined) return null;
  const alias = `svc-${major}`;
  const target = now.get(alias);
  return target && target !== model ? { alias, now: target } : null;
}

/** The Status cell: active, fitting on the runner, failed with its reason (the API's sentence on hover), or inactive. */
function statusBadge(c: ListedCalibration): HTMLElement {
  const text = statusText(c, when(c.deactivated));
  if (c.status === "active") return h("span", { class: "badge test" }, text);
  return h("span", { class: "badge", title: c.error?.message ?? null }, text);
}

async function allCalibrations(): Promise<ListedCalibration[]> {
  const all: ListedCalibration[] = [];
  for (;;) {
    const after = all.at(-1)?.id;
    const page = await api<{ data: ListedCalibration[]; has_more: boolean }>(
      "GET",
      `${CALIBRATIONS}?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`,
    );
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
  }
}

async function allItems(evaluation: string): Promise<EvaluationItem[]> {
  const all: EvaluationItem[] = [];
  for (;;) {
    const after = all.at(-1)?.index;
    const page = await api<{ data: EvaluationItem[]; has_more: boolean }>(
      "GET",
      `${EVALUATIONS}/${encodeURIComponent(evaluation)}/items?limit=1000${after === undefined ? "" : `&starting_after=${after}`}`,
    );
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
  }
}

/** The run a calibration was fitted on, or null once it is gone (kept 30 days, or deleted). */
async function sourceRun(id: string): Promise<Evaluation | null> {
  try {
    return await api<Evaluation>("GET", `${EVALUATIONS}/${encodeURIComponent(id)}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** The notice of an active calibration whose alias moved on, with the re-run of its items on the alias. */
function movedNotice(
  c: ListedCalibration,
  moved: { alias: string; now: string },
  run: Evaluation | null,
): HTMLElement {
  const status = h("div", { "aria-live": "polite" });
  const text = `${moved.alias} now answers with ${moved.now}: this calibration applies only to decides that name ${c.model}.`;
  if (!run)
    return h(
      "div",
      { class: "moved" },
      notice(
        "info",
        `${text} The run it was fitted on (${c.evaluation}) is gone (runs are kept 30 days): upload its labels again on the Evaluate page, on ${moved.alias}, to calibrate ${moved.now}.`,
      ),
    );
  const rerun = h("button", { type: "button", class: "secondary small" }, `Re-run on ${moved.now}`);
  rerun.addEventListener("click", async () => {
    rerun.setAttribute("disabled", "");
    status.replaceChildren(notice("info", `Reading the items of ${run.name}…`));
    try {
      const items = (await allItems(run.id)).map((i) => ({
        state: i.state,
        questions: i.questions,
        expected: i.expected,
      }));
      const name = `${run.name} on ${moved.now}`.slice(0, 200);
      const e = await api<Evaluation & { model: string }>("POST", EVALUATIONS, {
        body: { name, model: moved.alias, items },
      });
      status.replaceChildren(
        h(
          "p",
          { class: "notice success", role: "status" },
          `Queued “${e.name}”: ${items.length} items on ${e.model}. When it is done, Calibrate ${c.question_id} on it again: `,
          h("a", { href: `/console/evaluate#${e.id}` }, "open the run"),
          ".",
        ),
      );
    } catch (e) {
      rerun.removeAttribute("disabled");
      status.replaceChildren(notice("error", errorText(e)));
    }
  });
  return h("div", { class: "moved" }, notice("info", text), h("p", { class: "actions" }, rerun), status);
}

/** Calibrations: the account's, newest first; Remove with a confirmation; re-run when the alias moved on. */
export async function calibrationsPage(main: HTMLElement): Promise<void> {
  const status = h("div", { "aria-live": "polite" });
  const list = h("div", { id: "calibration-list" });
  const dialog = confirmDialog({
    title: "Remove this calibration?",
    titleId: "remove-title",
    confirm: "Remove calibration",
    confirmId: "confirm-remove",
  });

  async function remove(c: ListedCalibration): Promise<void> {
    const text = `Decides of ${c.question_id} on ${c.model} answer with the version's own map again, within a second. To get it back, calibrate again.`;
    if (!(await dialog.ask(text))) return;
    try {
      await api("DELETE", `${CALIBRATIONS}/${encodeURIComponent(c.id!)}`);
      status.replaceChildren(notice("success", `Removed the calibration of ${c.question_id} on ${c.model}.`));
      await refresh();
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    }
  }

  async function refresh(): Promise<void> {
    const all = await allCalibrations();
    if (all.length === 0) {
      list.replaceChildren(
        h(
          "p",
          { class: "empty" },
          "No calibrations yet: open a finished run on the Evaluate page and Calibrate a question.",
        ),
      );
      return;
    }
    const now = await aliases();
    const moved = all.map((c) => (c.active ? aliasMoved(c.model, now) : null));
    const runs = await Promise.all(all.map((c, i) => (moved[i] ? sourceRun(c.evaluation) : null)));
    list.replaceChildren(
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          {},
          h("caption", { class: "visually-hidden" }, "Calibrations"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ...[
                "Question",
                "Version",
                "Method",
                "n",
                "ECE-15 before → after",
                "Applied since",
                "Status",
                "",
              ].map((t) => h("th", { scope: "col" }, t)),
            ),
          ),
          h(
            "tbody",
            {},
            ...all.flatMap((c, i) => {
              const button = c.active
                ? h(
                    "button",
                    {
                      type: "button",
                      class: "danger small",
                      "aria-label": `Remove ${c.question_id} on ${c.model}`,
                    },
                    "Remove",
                  )
                : null;
              button?.addEventListener("click", () => remove(c));
              const row = h(
                "tr",
                { "data-calibration-id": c.id, class: c.active ? null : "revoked" },
                h(
                  "td",
                  { title: c.question?.instructions ?? null },
                  h("code", {}, c.question_id),
                  c.question ? ` ${questionSummary(c.question)}` : null,
                ),
                h("td", {}, c.model),
                h("td", { class: "method", "data-method": c.method }, c.method ? METHOD_TEXT[c.method] : "—"),
                h("td", { class: "num" }, c.n === null ? "—" : String(c.n)),
                h(
                  "td",
                  { class: "num ece" },
                  c.metrics ? `${fixed(c.metrics.before.ece15)} → ${fixed(c.metrics.after.ece15)}` : "—",
                ),
                h("td", {}, when(c.created)),
                h("td", { class: "status" }, statusBadge(c)),
                h("td", {}, button),
              );
              const m = moved[i];
              if (!m) return [row];
              return [
                row,
                h(
                  "tr",
                  { class: "moved-row", "data-moved": c.id },
                  h("td", { colspan: 8 }, movedNotice(c, m, runs[i] ?? null)),
                ),
              ];
            }),
          ),
        ),
      ),
    );
  }

  main.append(
    h(
      "p",
      { class: "hint" },
      "Each calibration answers one question of yours, as written, on one exact version, with a map fitted on your labelled run. Decides of other questions are unchanged.",
    ),
    status,
    list,
    dialog.el,
  );
  await refresh();
}
