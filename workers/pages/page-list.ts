/** The console's pages: path under the Worker → the page the script renders (`data-page`) and its title. */
export const CONSOLE_PAGES: Record<string, { page: string; title: string }> = {
  "/console/": { page: "overview", title: "Overview" },
  "/console/sign-in": { page: "sign-in", title: "Sign in" },
  "/console/keys": { page: "keys", title: "API keys" },
  "/console/usage": { page: "usage", title: "Usage" },
  "/console/billing": { page: "billing", title: "Billing" },
  "/console/billing/return": { page: "billing-return", title: "Payment" },
  "/console/playground": { page: "playground", title: "Playground" },
  "/console/evaluate": { page: "evaluate", title: "Evaluate" },
  "/console/calibrations": { page: "calibrations", title: "Calibrations" },
  "/console/questions": { page: "questions", title: "Questions" },
  "/console/reviews": { page: "reviews", title: "Review" },
  "/console/batches": { page: "batches", title: "Batches" },
  "/console/settings": { page: "settings", title: "Settings" },
};

/** What an unknown path under /console/ renders (with status 404). */
export const NOT_FOUND_PAGE = { page: "not-found", title: "Page not found" };
