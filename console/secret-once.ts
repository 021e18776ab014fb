import { field, h } from "./dom";

/** What a secret shown once is called on its page, and the ids its tests and labels use. */
export interface SecretOnce {
  value: string;
  /** ids of the field, the copy button and the card's title. */
  ids: { input: string; copy: string; title: string };
  /** The card's heading (an h2 or h3 with `ids.title`). */
  heading: HTMLElement;
  explanation: string;
  label: string;
}

/**
 * A secret shown this once (a new key's, a webhook endpoint's): a read-only field, selected; Copy (or, where the
 * clipboard is refused, a hint to copy by hand); "Done, I saved it" clears the box.
 */
export function showSecretOnce(box: HTMLElement, s: SecretOnce): void {
  const secret = h("input", {
    type: "text",
    readonly: true,
    id: s.ids.input,
    value: s.value,
    spellcheck: "false",
  });
  const copied = h("span", { role: "status", class: "hint" });
  const copy = h("button", { type: "button", id: s.ids.copy }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(secret.value);
      copied.textContent = "Copied.";
    } catch {
      secret.select();
      copied.textContent = "Select and copy it (Ctrl+C).";
    }
  });
  const done = h("button", { type: "button", class: "secondary" }, "Done, I saved it");
  done.addEventListener("click", () => box.replaceChildren());
  box.replaceChildren(
    h(
      "section",
      { class: "card secret", "aria-labelledby": s.ids.title },
      s.heading,
      h("p", {}, s.explanation),
      field(s.label, secret),
      h("p", { class: "actions" }, copy, done, copied),
    ),
  );
  secret.focus();
  secret.select();
}
