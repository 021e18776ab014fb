import { api, errorText } from "../api";
import { confirmDialog } from "../confirm";
import { field, h, notice, uid } from "../dom";
import { tokens, when } from "../format";
import { showSecretOnce } from "../secret-once";

export interface ConsoleKey {
  id: string;
  name: string | null;
  prefix: string;
  mode: "live" | "test";
  scopes: string[];
  rpm_limit: number | null;
  tpm_limit: number | null;
  created: number;
  expires_at: string | null;
  revoked_at: string | null;
}

const SCOPES = ["decide", "usage:read", "balance:read"] as const;

/** An optional positive integer from a number input (empty → undefined). */
function optionalInt(input: HTMLInputElement): number | undefined {
  return input.value.trim() === "" ? undefined : Number(input.value);
}

/** Keys: create (the secret shown once, with a copy button), list, revoke with a confirmation. */
export async function keysPage(main: HTMLElement): Promise<void> {
  const status = h("div", { "aria-live": "polite" });
  const created = h("div", { id: "created-key" });
  const list = h("div", { id: "key-list" });

  const name = h("input", { type: "text", name: "name", required: true, maxlength: 64, autocomplete: "off" });
  const mode = h(
    "select",
    { name: "mode" },
    h("option", { value: "test" }, "Test (free, daily quota)"),
    h("option", { value: "live" }, "Live (billed)"),
  );
  const scopeBoxes = SCOPES.map((s) =>
    h("input", { type: "checkbox", name: "scopes", value: s, checked: true }),
  );
  const scopes = h(
    "fieldset",
    { class: "scopes" },
    h("legend", {}, "Scopes"),
    ...scopeBoxes.map((box, i) => {
      box.id = uid("scope");
      return h("label", { for: box.id, class: "check" }, box, ` ${SCOPES[i]}`);
    }),
  );
  const rpm = h("input", { type: "number", name: "rpm_limit", min: 1, step: 1, inputmode: "numeric" });
  const tpm = h("input", { type: "number", name: "tpm_limit", min: 1, step: 1, inputmode: "numeric" });
  const expires = h("input", { type: "date", name: "expires" });
  const submit = h("button", { type: "submit" }, "Create key");
  const form = h(
    "form",
    { id: "create-key", class: "card" },
    h("h2", {}, "New key"),
    field("Name", name, "For you: where the key is used, e.g. backend."),
    field("Mode", mode),
    scopes,
    h(
      "div",
      { class: "row" },
      field("Requests per minute", rpm, "Empty: the account's limit."),
      field("Tokens per minute", tpm, "Empty: the account's limit."),
      field("Expires", expires, "Empty: never. The key stops at the end of that day (UTC)."),
    ),
    submit,
  );

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    submit.setAttribute("disabled", "");
    status.replaceChildren();
    try {
      const body: Record<string, unknown> = {
        name: name.value.trim(),
        mode: mode.value,
        scopes: scopeBoxes.filter((b) => b.checked).map((b) => b.value),
      };
      const r = optionalInt(rpm);
      const t = optionalInt(tpm);
      if (r !== undefined) body.rpm_limit = r;
      if (t !== undefined) body.tpm_limit = t;
      if (expires.value) body.expires_at = `${expires.value}T23:59:59Z`;
      const key = await api<ConsoleKey & { secret: string }>("POST", "/v1/console/keys", { body });
      showSecret(created, key);
      form.reset();
      await refresh();
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    } finally {
      submit.removeAttribute("disabled");
    }
  });

  const dialog = confirmDialog({
    title: "Revoke this key?",
    titleId: "revoke-title",
    confirm: "Revoke key",
    confirmId: "confirm-revoke",
  });

  async function refresh(): Promise<void> {
    const keys = await api<{ data: ConsoleKey[] }>("GET", "/v1/console/keys");
    list.replaceChildren(
      keyTable(keys.data, async (key) => {
        const text = `${key.name ?? key.prefix} (${key.prefix}…) stops working within a second, everywhere. This cannot be undone.`;
        if (!(await dialog.ask(text))) return;
        try {
          await api("DELETE", `/v1/console/keys/${encodeURIComponent(key.id)}`);
          status.replaceChildren(notice("success", `Revoked ${key.name ?? key.prefix}.`));
          await refresh();
        } catch (e) {
          status.replaceChildren(notice("error", errorText(e)));
        }
      }),
    );
  }

  main.append(created, status, h("h2", {}, "Your keys"), list, form, dialog.el);
  await refresh();
}

/** The new key's secret, shown this once, with a copy button (never stored by the page). */
function showSecret(box: HTMLElement, key: ConsoleKey & { secret: string }): void {
  showSecretOnce(box, {
    value: key.secret,
    ids: { input: "new-secret", copy: "copy-secret", title: "secret-title" },
    heading: h("h2", { id: "secret-title" }, `Key “${key.name ?? key.prefix}” created`),
    explanation: "Copy the secret now: it is shown this once and cannot be shown again.",
    label: "Secret key",
  });
}

function limit(v: number | null, unit: string): string {
  return `${v === null ? "account's" : tokens(v)} ${unit}`;
}

function keyTable(keys: ConsoleKey[], onRevoke: (k: ConsoleKey) => void): HTMLElement {
  if (keys.length === 0) return h("p", { class: "empty" }, "No keys yet: create one below.");
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, "API keys"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["Name", "Key", "Mode", "Scopes", "Limits", "Created", "Expires", ""].map((t) =>
            h("th", { scope: "col" }, t),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        ...keys.map((k) => {
          const revoked = k.revoked_at !== null;
          const button = revoked
            ? h("span", { class: "badge" }, `revoked ${when(k.revoked_at)}`)
            : h(
                "button",
                { type: "button", class: "danger small", "aria-label": `Revoke ${k.name ?? k.prefix}` },
                "Revoke",
              );
          if (!revoked) button.addEventListener("click", () => onRevoke(k));
          return h(
            "tr",
            { class: revoked ? "revoked" : null, "data-key-id": k.id },
            h("td", {}, k.name ?? "—"),
            h("td", {}, h("code", {}, `${k.prefix}…`)),
            h("td", {}, h("span", { class: `badge ${k.mode}` }, k.mode)),
            h("td", {}, k.scopes.join(", ")),
            h("td", {}, limit(k.rpm_limit, "req/min"), h("br", {}), limit(k.tpm_limit, "tokens/min")),
            h("td", {}, when(k.created)),
            h("td", {}, when(k.expires_at)),
            h("td", {}, button),
          );
        }),
      ),
    ),
  );
}
