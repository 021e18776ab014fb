import { api, errorText, type Session, useCsrf } from "../api";
import { field, h, notice } from "../dom";

/** Sign-in: an e-mailed 8-digit code (two steps), or the identity provider's browser flow. */
export function signInPage(main: HTMLElement): void {
  const status = h("div", { "aria-live": "polite" });
  const email = h("input", { type: "email", name: "email", autocomplete: "email", required: true });
  const sendButton = h("button", { type: "submit" }, "E-mail me a code");
  const emailForm = h(
    "form",
    { id: "email-form", novalidate: false },
    field("E-mail address", email),
    sendButton,
  );
  const code = h("input", {
    type: "text",
    name: "code",
    inputmode: "numeric",
    autocomplete: "one-time-code",
    pattern: "[0-9]{8}",
    maxlength: 8,
    required: true,
  });
  const codeForm = h(
    "form",
    { id: "code-form", hidden: true },
    field("Sign-in code", code, "8 digits, valid 10 minutes, from the e-mail we just sent."),
    h("button", { type: "submit" }, "Sign in"),
  );

  emailForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    sendButton.setAttribute("disabled", "");
    try {
      await api("POST", "/v1/console/auth/codes", { body: { email: email.value.trim() } });
      status.replaceChildren(notice("success", `We sent a code to ${email.value.trim()}.`));
      codeForm.hidden = false;
      code.focus();
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
    } finally {
      sendButton.removeAttribute("disabled");
    }
  });
  codeForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const s = await api<Session>("POST", "/v1/console/sessions", {
        body: { email: email.value.trim(), code: code.value.trim() },
        redirectOn401: false,
      });
      useCsrf(s.csrf_token);
      location.assign("/console/");
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
      code.select();
    }
  });

  main.append(
    h("p", {}, "Sign in or create an account: no password, a code by e-mail."),
    emailForm,
    codeForm,
    status,
    h("p", { class: "or" }, "or"),
    h(
      "a",
      { class: "button secondary", id: "idp-sign-in", href: "/v1/console/auth/idp/start" },
      "Continue with your identity provider",
    ),
  );
  email.focus();
}
