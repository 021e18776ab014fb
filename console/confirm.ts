import { h } from "./dom";

/** What a {@link confirmDialog} says: its title, its confirming button, and their element ids. */
export interface ConfirmText {
  title: string;
  titleId: string;
  confirm: string;
  confirmId: string;
}

/** A modal confirmation (native <dialog>: focus trapped, Escape cancels); `ask` resolves true on confirm. */
export function confirmDialog(o: ConfirmText): {
  el: HTMLDialogElement;
  ask(text: string): Promise<boolean>;
} {
  const text = h("p", {});
  const yes = h("button", { type: "submit", value: "yes", class: "danger", id: o.confirmId }, o.confirm);
  const no = h("button", { type: "submit", value: "no", class: "secondary" }, "Cancel");
  const el = h(
    "dialog",
    { "aria-labelledby": o.titleId },
    h(
      "form",
      { method: "dialog" },
      h("h2", { id: o.titleId }, o.title),
      text,
      h("p", { class: "actions" }, no, yes),
    ),
  );
  return {
    el,
    ask(message) {
      text.textContent = message;
      el.returnValue = "";
      el.showModal();
      no.focus();
      return new Promise((resolve) =>
        el.addEventListener("close", () => resolve(el.returnValue === "yes"), { once: true }),
      );
    },
  };
}
