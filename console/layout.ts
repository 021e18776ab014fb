import { api, errorText, type Session, SIGN_IN } from "./api";
import { h, notice } from "./dom";

const NAV: Array<[page: string, href: string, label: string]> = [
  ["overview", "/console/", "Overview"],
  ["keys", "/console/keys", "Keys"],
  ["usage", "/console/usage", "Usage"],
  ["billing", "/console/billing", "Billing"],
  ["playground", "/console/playground", "Playground"],
  ["evaluate", "/console/evaluate", "Evaluate"],
  ["calibrations", "/console/calibrations", "Calibrations"],
  ["questions", "/console/questions", "Questions"],
  ["reviews", "/console/reviews", "Review"],
  ["batches", "/console/batches", "Batches"],
  ["settings", "/console/settings", "Settings"],
];

/** Header with the navigation, the signed-in address and sign-out; returns the page's `<main>`. */
export function signedInLayout(app: HTMLElement, session: Session, page: string, title: string): HTMLElement {
  const signOut = h("button", { type: "button", class: "link", id: "sign-out" }, "Sign out");
  signOut.addEventListener("click", async () => {
    signOut.setAttribute("disabled", "");
    try {
      await api("DELETE", "/v1/console/session");
      location.assign(SIGN_IN);
    } catch (e) {
      signOut.removeAttribute("disabled");
      main.prepend(notice("error", errorText(e)));
    }
  });
  const nav = h(
    "nav",
    { "aria-label": "Console" },
    h(
      "ul",
      {},
      ...NAV.map(([p, href, label]) =>
        h(
          "li",
          {},
          h(
            "a",
            {
              href,
              "aria-current": p === page || (page === "billing-return" && p === "billing") ? "page" : null,
            },
            label,
          ),
        ),
      ),
    ),
  );
  const header = h(
    "header",
    { class: "top" },
    h("a", { class: "brand", href: "/console/" }, "svc"),
    nav,
    h("div", { class: "who" }, h("span", { class: "email" }, session.email ?? session.account_id), signOut),
  );
  const main = h("main", { id: "main", tabindex: "-1" }, h("h1", {}, title));
  app.replaceChildren(header, main);
  return main;
}

/** The layout of the signed-out pages (sign-in). */
export function plainLayout(app: HTMLElement, title: string): HTMLElement {
  const main = h("main", { id: "main", class: "narrow", tabindex: "-1" }, h("h1", {}, title));
  app.replaceChildren(h("header", { class: "top" }, h("span", { class: "brand" }, "svc")), main);
  return main;
}
