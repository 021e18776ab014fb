import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium binary (not the /usr/bin/chromium shell wrapper); SVC_CHROMIUM overrides. */
export const DEFAULT_CHROMIUM = "/usr/lib/chromium/chromium";

/** The Chromium the browser tier drives, or null when none is installed (the tier is then skipped). */
export function chromiumPath(): string | null {
  const path = process.env.SVC_CHROMIUM || DEFAULT_CHROMIUM;
  return existsSync(path) ? path : null;
}

/** Headless Chromium through playwright-core (nothing is downloaded: the binary is the system's). */
export function launchChromium(path: string): Promise<Browser> {
  return chromium.launch({ executablePath: path, headless: true, args: ["--no-sandbox"] });
}

/** The newest sign-in code the local fake e-mail API received for `to`. */
export async function signInCodeFromInbox(emailUrl: string, to: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`${emailUrl}/__inbox?to=${encodeURIComponent(to)}`);
    const inbox = (await res.json()) as { data: Array<{ text: string }> };
    const code = inbox.data.at(-1)?.text.match(/\b(\d{8})\b/)?.[1];
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no sign-in code for ${to} in the local inbox`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Signs `email` in on the console's sign-in page, which `page` must show: the address, then the code from the
 * local inbox at `emailUrl`; resolves once the console's home is open.
 */
export async function signInByEmailCode(
  page: Page,
  baseUrl: string,
  emailUrl: string,
  email: string,
): Promise<void> {
  await page.getByLabel("E-mail address").fill(email);
  await page.keyboard.press("Enter");
  await page.getByLabel("Sign-in code").waitFor();
  await page.getByLabel("Sign-in code").fill(await signInCodeFromInbox(emailUrl, email));
  await page.keyboard.press("Enter");
  await page.waitForURL(`${baseUrl}/console/`);
}

/**
 * Everything a page reports as wrong from now on (issue 54): console errors, uncaught page errors, answers with
 * an HTTP status ≥ 400 and requests that failed outright. The array fills as the page runs.
 */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error on ${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error on ${page.url()}: ${String(e)}`));
  page.on("response", (r) => {
    if (r.status() >= 400)
      problems.push(`${r.status()} for ${r.request().method()} ${r.url()} on ${page.url()}`);
  });
  page.on("requestfailed", (r) =>
    problems.push(`request failed (${r.failure()?.errorText}): ${r.method()} ${r.url()} on ${page.url()}`),
  );
  return problems;
}

/**
 * Adds to `problems`, from now on, the page's uncaught errors and console errors, except the "failed to load
 * resource" errors of the HTTP statuses `expected` matches (the refusals the flow provokes and says in words).
 */
export function watchConsoleErrors(page: Page, expected: RegExp, problems: string[]): void {
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !expected.test(m.text())) problems.push(m.text());
  });
}
