import { errorText, loadSession, SIGN_IN } from "./api";
import { notice } from "./dom";
import { plainLayout, signedInLayout } from "./layout";
import { batchesPage } from "./pages/batches";
import { billingPage, billingReturnPage } from "./pages/billing";
import { calibrationsPage } from "./pages/calibrations";
import { evaluatePage } from "./pages/evaluate";
import { keysPage } from "./pages/keys";
import { overviewPage } from "./pages/overview";
import { playgroundPage } from "./pages/playground";
import { questionsPage } from "./pages/questions";
import { reviewsPage } from "./pages/reviews";
import { settingsPage } from "./pages/settings";
import { signInPage } from "./pages/sign-in";
import { usagePage } from "./pages/usage";

type Render = (main: HTMLElement) => Promise<void> | void;

const PAGES: Record<string, Render> = {
  overview: overviewPage,
  keys: keysPage,
  usage: usagePage,
  billing: billingPage,
  "billing-return": billingReturnPage,
  playground: playgroundPage,
  evaluate: evaluatePage,
  calibrations: calibrationsPage,
  questions: questionsPage,
  reviews: reviewsPage,
  batches: batchesPage,
  settings: settingsPage,
};

async function start(): Promise<void> {
  const app = document.getElementById("app")!;
  const page = document.body.dataset.page ?? "not-found";
  const title = document.title.split(" · ")[0] ?? "svc";
  const session = await loadSession();
  if (page === "sign-in") {
    if (session) return location.replace("/console/");
    return signInPage(plainLayout(app, title));
  }
  if (!session) return location.replace(SIGN_IN);
  const main = signedInLayout(app, session, page, title);
  const render = PAGES[page];
  if (!render) {
    main.append(notice("error", "There is no such page in the console."));
    return;
  }
  await render(main);
}

start().catch((e) => {
  const main = document.getElementById("main") ?? document.body;
  main.append(notice("error", `The console could not load: ${errorText(e)}`));
});
