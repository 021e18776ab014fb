import { api, download, errorText, saveAs } from "../api";
import {
  BATCHES,
  type Batch,
  isActive,
  MAX_BATCH_BYTES,
  MAX_BATCH_LINES,
  STATUS_WORDS,
  uploadErrorText,
} from "../batches";
import { confirmDialog } from "../confirm";
import { h, notice } from "../dom";
import { eurFromMicroCents, tokens, when } from "../format";

/** How often the list is read again while a batch is queued, running or paused. */
const POLL_MS = 2500;

/** A fresh idempotency key per chosen file: uploading it again after a lost answer gives the same batch. */
const idempotencyKey = () => `console-${crypto.randomUUID()}`;

const size = (bytes: number) =>
  bytes < 1024 * 1024 ? `${tokens(Math.ceil(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** A paused batch: what it waits for, in words, with what to do. */
function pauseWords(b: Batch): Array<Node | string> {
  if (b.paused_reason === "insufficient_balance")
    return [
      "Paused: the balance ran out — ",
      h("a", { href: "/console/billing" }, "add funds to resume"),
      ".",
    ];
  if (b.paused_reason === "test_daily_quota")
    return [
      `Paused: the daily test quota is used up — resumes at ${b.resumes_at === null ? "00:00 UTC" : when(b.resumes_at)}.`,
    ];
  return ["Paused."];
}

function statusCell(b: Batch): HTMLElement {
  const words =
    b.status === "paused"
      ? pauseWords(b)
      : [STATUS_WORDS[b.status], b.failure ? `: ${b.failure.message}` : ""];
  return h("td", { class: "status", "data-status": b.status }, ...words);
}

function progressCell(b: Batch): HTMLElement {
  const { total, done, failed } = b.counts;
  return h(
    "td",
    { class: "progress" },
    h("progress", { max: total, value: done + failed, "aria-label": `Lines finished of ${b.id}` }),
    h("span", { class: "counts" }, ` ${tokens(done)} done + ${tokens(failed)} failed of ${tokens(total)}`),
  );
}

/** Batches: upload a JSONL file (drop zone or picker) in test or live mode, the list, results, cancel, delete. */
export async function batchesPage(main: HTMLElement): Promise<void> {
  const status = h("div", { "aria-live": "polite" });
  const list = h("div", { id: "batches" });
  const cancelDialog = confirmDialog({
    title: "Cancel this batch?",
    titleId: "cancel-title",
    confirm: "Cancel batch",
    confirmId: "confirm-cancel",
  });
  const deleteDialog = confirmDialog({
    title: "Delete this batch?",
    titleId: "delete-title",
    confirm: "Delete batch",
    confirmId: "confirm-delete",
  });

  // The upload: a drop zone that is also a button opening the file picker, the mode, then Upload.
  let chosen: { file: File; key: string } | null = null;
  const input = h("input", {
    type: "file",
    id: "batch-file",
    name: "file",
    accept: ".jsonl,.ndjson,application/jsonl,application/x-ndjson",
    class: "visually-hidden",
  });
  const picked = h("p", { id: "batch-picked", class: "hint" }, "No file chosen.");
  const zone = h(
    "div",
    { id: "batch-drop", class: "drop-zone" },
    h("p", {}, "Drop a .jsonl file here, or "),
    h("label", { for: "batch-file", class: "button secondary" }, "Choose a file"),
    input,
    picked,
  );
  const upload = h("button", { type: "submit", id: "batch-upload", disabled: true }, "Upload batch");
  const formStatus = h("div", { "aria-live": "polite", id: "batch-form-status" });

  function choose(file: File | undefined): void {
    formStatus.replaceChildren();
    if (!file) return;
    if (file.size > MAX_BATCH_BYTES) {
      chosen = null;
      upload.setAttribute("disabled", "");
      picked.textContent = "No file chosen.";
      formStatus.replaceChildren(
        notice("error", `${file.name} is ${size(file.size)}: a batch upload is at most 100 MB.`),
      );
      return;
    }
    chosen = { file, key: idempotencyKey() };
    picked.textContent = `${file.name} (${size(file.size)})`;
    upload.removeAttribute("disabled");
  }
  input.addEventListener("change", () => choose(input.files?.[0]));
  zone.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    zone.classList.remove("over");
    choose(ev.dataTransfer?.files[0]);
  });

  const modeTest = h("input", { type: "radio", name: "mode", value: "test", checked: true, id: "mode-test" });
  const modeLive = h("input", { type: "radio", name: "mode", value: "live", id: "mode-live" });
  const modes = h(
    "fieldset",
    {},
    h("legend", {}, "Mode"),
    h(
      "label",
      { class: "check", for: "mode-test" },
      modeTest,
      " Test — free, on the account's daily test quota (paused when it is used up)",
    ),
    h(
      "label",
      { class: "check", for: "mode-live" },
      modeLive,
      " Live — each answered line is charged to your balance, like a decide",
    ),
  );
  const form = h(
    "form",
    { id: "batch-form", class: "card" },
    h("h2", {}, "Upload a batch"),
    zone,
    modes,
    h("p", { class: "actions" }, upload),
    formStatus,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!chosen) return;
    const mode = modeLive.checked ? "live" : "test";
    upload.setAttribute("disabled", "");
    formStatus.replaceChildren(notice("info", `Uploading ${chosen.file.name}…`));
    try {
      const b = await api<Batch>("POST", `${BATCHES}?mode=${mode}`, {
        file: { data: chosen.file, type: "application/jsonl" },
        idempotencyKey: chosen.key,
      });
      formStatus.replaceChildren(
        notice("success", `Queued ${b.id}: ${tokens(b.counts.total)} lines, ${b.mode}.`),
      );
      chosen = null;
      input.value = "";
      picked.textContent = "No file chosen.";
      await refresh();
    } catch (e) {
      upload.removeAttribute("disabled");
      formStatus.replaceChildren(notice("error", uploadErrorText(e)));
    }
  });

  async function act(run: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await run();
      status.replaceChildren(notice("success", done));
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    }
    await refresh();
  }

  async function cancel(b: Batch): Promise<void> {
    const text = `${b.id}: lines in flight finish${b.mode === "live" ? " and are charged" : ""}; the rest never run. Its results so far stay downloadable.`;
    if (!(await cancelDialog.ask(text))) return;
    await act(() => api("POST", `${BATCHES}/${encodeURIComponent(b.id)}/cancel`), `Cancelled ${b.id}.`);
  }

  async function remove(b: Batch): Promise<void> {
    const text = `${b.id}: its lines and results are deleted now; they cannot be downloaded afterwards.`;
    if (!(await deleteDialog.ask(text))) return;
    await act(() => api("DELETE", `${BATCHES}/${encodeURIComponent(b.id)}`), `Deleted ${b.id}.`);
  }

  async function results(b: Batch, button: HTMLButtonElement): Promise<void> {
    button.setAttribute("disabled", "");
    try {
      saveAs(await download(`${BATCHES}/${encodeURIComponent(b.id)}/results`), `${b.id}-results.jsonl`);
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    } finally {
      button.removeAttribute("disabled");
    }
  }

  function row(b: Batch): HTMLElement {
    const buttons: HTMLElement[] = [];
    if (b.counts.done + b.counts.failed > 0) {
      const get = h(
        "button",
        { type: "button", class: "secondary small", "aria-label": `Download results of ${b.id}` },
        "Download results",
      );
      get.addEventListener("click", () => results(b, get));
      buttons.push(get);
    }
    if (isActive(b)) {
      const stop = h(
        "button",
        { type: "button", class: "danger small", "aria-label": `Cancel ${b.id}` },
        "Cancel",
      );
      stop.addEventListener("click", () => cancel(b));
      buttons.push(stop);
    } else {
      const del = h(
        "button",
        { type: "button", class: "danger small", "aria-label": `Delete ${b.id}` },
        "Delete",
      );
      del.addEventListener("click", () => remove(b));
      buttons.push(del);
    }
    return h(
      "tr",
      { "data-batch-id": b.id, "data-status": b.status },
      h("td", {}, h("code", {}, b.id), h("br", {}), h("small", {}, when(b.created))),
      h("td", {}, h("span", { class: `badge ${b.mode}` }, b.mode), b.model ? ` ${b.model}` : ""),
      statusCell(b),
      progressCell(b),
      h(
        "td",
        { class: "num cost", title: `${tokens(b.usage.input_tokens)} input tokens` },
        eurFromMicroCents(b.usage.charge_micro_cents),
      ),
      h("td", {}, h("div", { class: "row-actions" }, ...buttons)),
    );
  }

  let timer = 0;
  let asked = 0;
  async function refresh(): Promise<void> {
    clearTimeout(timer);
    const mine = ++asked;
    let page: { data: Batch[] };
    try {
      page = await api<{ data: Batch[] }>("GET", `${BATCHES}?limit=100`);
    } catch (e) {
      if (mine === asked) list.replaceChildren(notice("error", errorText(e)));
      return;
    }
    // Reads overlap (an action's, the poll's): only the newest is drawn.
    if (mine !== asked) return;
    if (page.data.length === 0)
      list.replaceChildren(h("p", { class: "empty" }, "No batches yet: upload a JSONL file above."));
    else
      list.replaceChildren(
        h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("caption", { class: "visually-hidden" }, "Your batches, newest first"),
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ...["Batch", "Mode", "Status", "Progress", "Cost so far", ""].map((t) =>
                  h("th", { scope: "col" }, t),
                ),
              ),
            ),
            h("tbody", {}, ...page.data.map(row)),
          ),
        ),
      );
    if (page.data.some(isActive)) timer = window.setTimeout(() => void refresh(), POLL_MS);
  }

  main.append(
    h(
      "p",
      { class: "hint" },
      `One decide a line: {"custom_id": "…", "body": <a decide request>}; up to ${tokens(MAX_BATCH_LINES)} lines and 100 MB. `,
      "Lines run in the background at batch priority and stop 24 hours after the upload; results are kept 30 days after a batch ends. ",
      h("a", { href: "/console/settings" }, "A webhook"),
      " can tell your server when a batch ends.",
    ),
    form,
    h("h2", {}, "Your batches"),
    status,
    list,
    cancelDialog.el,
    deleteDialog.el,
  );
  await refresh();
}
