import { api, errorText } from "../api";
import { WEBHOOK_EVENTS } from "../batch-words";
import { WEBHOOK_ENDPOINT, WEBHOOK_ENDPOINTS, type WebhookEndpoint } from "../batches";
import { confirmDialog } from "../confirm";
import { field, h, notice } from "../dom";
import { when } from "../format";
import { showSecretOnce } from "../secret-once";

/**
 * The account's endpoint, or null when none is set: read from the list, which is empty then (the single
 * endpoint's 404 would be an error in the browser's console of every fresh account).
 */
async function currentEndpoint(): Promise<WebhookEndpoint | null> {
  const list = await api<{ data: WebhookEndpoint[] }>("GET", WEBHOOK_ENDPOINTS);
  return list.data[0] ?? null;
}

/** The new endpoint's signing secret, shown this once, with a copy button (never stored by the page). */
function showSecret(box: HTMLElement, e: WebhookEndpoint & { secret: string }): void {
  showSecretOnce(box, {
    value: e.secret,
    ids: { input: "webhook-secret", copy: "copy-webhook-secret", title: "webhook-secret-title" },
    heading: h("h3", { id: "webhook-secret-title" }, "The endpoint's signing secret"),
    explanation:
      "Copy the secret now: it is shown this once and cannot be shown again. Setting the endpoint again makes a new one.",
    label: "Signing secret",
  });
}

/** Settings → Webhooks: the endpoint batch events are sent to, its secret shown once, and removing it. */
export async function settingsPage(main: HTMLElement): Promise<void> {
  const status = h("div", { "aria-live": "polite" });
  const current = h("div", { id: "webhook-current" });
  const secretBox = h("div", { id: "webhook-secret-box" });
  const url = h("input", {
    type: "url",
    name: "url",
    required: true,
    maxlength: 2048,
    placeholder: "https://example.com/svc/webhooks",
    autocomplete: "off",
  });
  const save = h("button", { type: "submit" }, "Save endpoint");
  const form = h(
    "form",
    { id: "webhook-form" },
    field(
      "Endpoint URL",
      url,
      "https, on a public host. Saving replaces the current endpoint and its secret.",
    ),
    save,
  );
  const dialog = confirmDialog({
    title: "Remove the webhook endpoint?",
    titleId: "remove-webhook-title",
    confirm: "Remove endpoint",
    confirmId: "confirm-remove-webhook",
  });

  function draw(e: WebhookEndpoint | null): void {
    if (!e) {
      current.replaceChildren(h("p", { class: "empty" }, "No endpoint: no events are sent."));
      return;
    }
    const remove = h("button", { type: "button", class: "danger small" }, "Remove endpoint");
    remove.addEventListener("click", async () => {
      if (!(await dialog.ask(`Events are no longer sent to ${e.url}; events not yet delivered are dropped.`)))
        return;
      try {
        await api("DELETE", WEBHOOK_ENDPOINT);
        secretBox.replaceChildren();
        status.replaceChildren(notice("success", "Removed the webhook endpoint."));
        draw(null);
      } catch (err) {
        status.replaceChildren(notice("error", errorText(err)));
      }
    });
    current.replaceChildren(
      h(
        "p",
        {},
        "Events go to ",
        h("code", { class: "webhook-url", id: "webhook-url" }, e.url),
        ` (set ${when(e.created)}).`,
      ),
      h("p", { class: "actions" }, remove),
    );
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    save.setAttribute("disabled", "");
    status.replaceChildren();
    try {
      const e = await api<WebhookEndpoint>("POST", WEBHOOK_ENDPOINT, { body: { url: url.value.trim() } });
      draw(e);
      url.value = "";
      if (e.secret) showSecret(secretBox, { ...e, secret: e.secret });
      status.replaceChildren(notice("success", `Batch events go to ${e.url} now.`));
    } catch (err) {
      status.replaceChildren(notice("error", errorText(err)));
    } finally {
      save.removeAttribute("disabled");
    }
  });

  main.append(
    h(
      "section",
      { class: "card", "aria-labelledby": "webhooks-title" },
      h("h2", { id: "webhooks-title" }, "Webhooks"),
      h(
        "p",
        {},
        "When a batch ends, a question drifts or a calibration fitted in the background ends, svc POSTs an event to your endpoint: ",
        ...WEBHOOK_EVENTS.flatMap((t, i) => [i === 0 ? "" : ", ", h("code", {}, t)]),
        ". Each call is signed: ",
        h("code", {}, "svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of “t.body”>"),
        " with the endpoint's secret; allow 5 minutes between t and your clock. A call not answered 2xx within 10 s is tried again with backoff for a day.",
      ),
      current,
      secretBox,
      form,
      status,
    ),
    dialog.el,
  );
  draw(await currentEndpoint());
}
