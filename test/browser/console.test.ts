import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../scripts/stack/start-stack";
import { CONSOLE_PAGES } from "../../workers/pages/page-list";
import {
  chromiumPath,
  launchChromium,
  signInByEmailCode,
  signInCodeFromInbox,
  watchPageProblems,
} from "../support/browser";
import { readmeDecide } from "../support/decide-fixtures";

const CHROMIUM = chromiumPath();
/** `npm run screenshots` (SVC_SCREENSHOTS=1) writes each page's PNG into docs/console/. */
const SHOTS = process.env.SVC_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../docs/console")
  : null;

describe.skipIf(!CHROMIUM)(
  "the browser console in real Chromium, end to end against `npm start`'s stack",
  () => {
    let stack: Stack;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const dataDir = mkdtempSync(join(tmpdir(), "svc-browser-"));
    /** Console messages about a blocked script, style or connection (CSP), and page errors. */
    const problems: string[] = [];

    beforeAll(async () => {
      // The GPU worker is on: test keys and the playground are served by the GPU only.
      stack = await startStack({ dataDir });
      browser = await launchChromium(CHROMIUM!);
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.baseUrl });
      page = await context.newPage();
      page.on("console", (m) => {
        if (
          m.type() === "error" &&
          !/Failed to load resource: the server responded with a status of 40[134]/.test(m.text())
        )
          problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(String(e)));
      if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    });

    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const shot = async (name: string) => {
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`) });
    };
    const url = (path: string) => `${stack.baseUrl}${path}`;

    it("issue 54: 'no error in the browser's console on any page of a signed-in fresh account': every console page, no console error, page error or failed request", async () => {
      const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const tab = await fresh.newPage();
        await tab.goto(url("/console/sign-in"));
        await signInByEmailCode(
          tab,
          stack.baseUrl,
          stack.console!.emailUrl!,
          `fresh-${Date.now()}@example.com`,
        );
        await tab.waitForLoadState("networkidle");
        const seen = watchPageProblems(tab);
        const pages = Object.entries(CONSOLE_PAGES).filter(([, p]) => p.page !== "sign-in");
        expect(pages.length).toBeGreaterThanOrEqual(10);
        for (const [path, { title }] of pages) {
          await tab.goto(url(path), { waitUntil: "networkidle" });
          await expect.poll(() => tab.locator("main h1").textContent()).toBe(title);
          expect(await tab.locator("main .notice.error").count(), `an error notice on ${path}`).toBe(0);
        }
        expect(seen).toEqual([]);
      } finally {
        await fresh.close();
      }
    });

    it("sign in with the e-mailed code (keyboard only) → create a key → decide with it → see it in the usage chart → top up through Stripe's pay page → the balance grows → a plan checkout cancelled, a waiting list joined → revoke → the key gets 401 → playground → sign out → the identity provider signs in", async () => {
      const email = `browser-${Date.now()}@example.com`;

      // Signed out: every console page sends the browser to the sign-in page.
      await page.goto(url("/console/keys"));
      await page.waitForURL(url("/console/sign-in"));
      const emailBox = page.getByLabel("E-mail address");
      await expect.poll(() => emailBox.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await shot("sign-in");
      await page.keyboard.type(email);
      await page.keyboard.press("Enter");
      const codeBox = page.getByLabel("Sign-in code");
      await codeBox.waitFor({ state: "visible" });
      await expect.poll(() => codeBox.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      const code = await signInCodeFromInbox(stack.console!.emailUrl!, email);
      await page.keyboard.type(code === "00000000" ? "11111111" : "00000000");
      await page.keyboard.press("Enter");
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("invalid_code");
      await codeBox.fill("");
      await page.keyboard.type(code);
      await page.keyboard.press("Enter");
      await page.waitForURL(url("/console/"));

      // Overview: balance in EUR, tier, plan, allowance, month-to-date tokens.
      await expect.poll(() => page.locator("#balance").textContent()).toBe("€0.00");
      expect(await page.locator("#tier").textContent()).toBe("T1");
      expect(await page.locator("#plan").textContent()).toMatch(/None/);
      expect(await page.locator("#mtd-tokens").textContent()).toBe("0");
      // The session is only in its HttpOnly cookie: nothing readable by the page, nothing in storage.
      expect(await page.evaluate("document.cookie")).toBe("");
      const cookies = await context.cookies(stack.baseUrl);
      expect(cookies.map((c) => [c.name, c.httpOnly, c.secure])).toEqual([
        ["__Host-svc_session", true, true],
      ]);

      // Keys: create a test key; the secret is shown once, with a copy button.
      await page.getByRole("link", { name: "Keys" }).click();
      await page.waitForURL(url("/console/keys"));
      await page.getByLabel("Name", { exact: true }).fill("browser e2e");
      await page.getByRole("button", { name: "Create key" }).click();
      const secretBox = page.locator("#new-secret");
      await secretBox.waitFor();
      const secret = await secretBox.inputValue();
      expect(secret).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
      await page.getByRole("button", { name: "Copy" }).click();
      await expect.poll(() => page.evaluate("navigator.clipboard.readText()")).toBe(secret);
      // The page sends the CSRF header; without it the same change is refused.
      const noCsrf = await page.evaluate(`fetch("/v1/console/keys", { method: "POST",
        headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "x", mode: "test" }) })
        .then(async (r) => [r.status, (await r.json()).error.code])`);
      expect(noCsrf).toEqual([403, "csrf_failed"]);
      const row = page.locator("tr[data-key-id]", { hasText: "browser e2e" });
      await row.waitFor();
      const keyId = await row.getAttribute("data-key-id");
      await shot("keys");
      // No secret in a URL or in storage.
      expect(page.url()).not.toContain(secret);
      expect(
        await page.evaluate("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })"),
      ).toBe("{}{}");

      // The key works against the API (from the test, not the browser).
      const first = await readmeDecide(stack.baseUrl, secret);
      expect(first.status, await first.clone().text()).toBe(200);
      expect(await first.json()).toMatchObject({ object: "decision", served_by: "gpu" });

      // Usage: the call shows in the chart (grouped by key) and its totals table. The usage log writes an isolate's
      // events in batches (up to 200 ms after the answer), so a page opened at once may show none yet: each load
      // is read once its chart is drawn (`data-total-requests`, 0 when empty), and the page loaded again until the
      // call is there.
      await page.getByRole("link", { name: "Usage" }).click();
      await page.waitForURL(url("/console/usage"));
      const drawnTotal = async () => {
        await page.locator("#usage-chart[data-total-requests]").waitFor();
        return page.locator("#usage-chart").getAttribute("data-total-requests");
      };
      await expect
        .poll(
          async () => {
            const total = await drawnTotal();
            if (total === "1") return total;
            await page.reload();
            return drawnTotal();
          },
          { timeout: 20_000 },
        )
        .toBe("1");
      await page.locator("#usage-chart canvas").waitFor();
      expect(await page.locator(`#usage-totals tr[data-group="${keyId}"] td.requests`).textContent()).toBe(
        "1",
      );
      expect(await page.locator(".uplot .u-legend").textContent()).toContain("browser e2e");
      await shot("usage");
      await page.getByLabel("Granularity").selectOption("hour");
      await expect.poll(() => page.locator("#usage-chart figcaption").textContent()).toMatch(/by hour/);
      expect(await page.locator("#usage-chart").getAttribute("data-total-requests")).toBe("1");

      // Billing: a EUR 25 pack → the local Stripe's pay page → back to the console → the balance grew.
      await page.getByRole("link", { name: "Billing" }).click();
      await page.waitForURL(url("/console/billing"));
      expect(await page.locator("#balance").textContent()).toBe("€0.00");
      expect(await page.locator("#plans tbody tr").count()).toBeGreaterThan(0);
      expect(await page.locator('#plans tr[data-plan="hot"]').textContent()).toMatch(/\d+ of \d+/);
      await shot("billing");
      await page.getByRole("button", { name: "€25.00" }).click();
      await page.waitForURL(/\/pay\/cs_/);
      expect(await page.locator("#subtotal").textContent()).toBe("EUR 25.00");
      await page.locator("#pay").click();
      await page.waitForURL(url("/console/billing/return?checkout=success"));
      await expect.poll(() => page.locator("#balance").textContent(), { timeout: 20_000 }).toBe("€25.00");
      await shot("billing-return");
      // A plan: Subscribe → the pay page (a subscription) → Cancel → back, nothing charged.
      await page.getByRole("link", { name: "Back to billing" }).click();
      await page.getByRole("button", { name: "Subscribe to Base" }).click();
      await page.waitForURL(/\/pay\/cs_/);
      expect(await page.textContent("body")).toContain("Subscription (monthly)");
      await page.locator("#cancel").click();
      await page.waitForURL(url("/console/billing/return?checkout=cancelled"));
      expect(await page.getByRole("status").first().textContent()).toContain("cancelled");
      // A sold-out plan offers the waiting list (the plan list is altered in the browser; the join is real).
      await page.route("**/v1/console/plans", async (route) => {
        const res = await route.fetch();
        const list = (await res.json()) as { data: Array<{ id: string }> };
        for (const p of list.data)
          if (p.id === "fierce") Object.assign(p, { seats_left: 0, available: false });
        await route.fulfill({ response: res, json: list });
      });
      await page.goto(url("/console/billing"));
      await page.getByRole("button", { name: "Join the waiting list for Fierce" }).click();
      await expect
        .poll(() => page.locator(".notice.success").textContent())
        .toMatch(/number 1 on the waiting list for Fierce/);
      await page.unroute("**/v1/console/plans");
      await page.getByRole("link", { name: "Overview" }).first().click();
      await page.waitForURL(url("/console/"));
      await expect.poll(() => page.locator("#balance").textContent()).toBe("€25.00");
      await shot("overview");

      // Revoke with confirmation (a modal dialog); then the key gets 401.
      await page.getByRole("link", { name: "Keys" }).click();
      // By keyboard: Enter opens the confirmation, Escape cancels it (nothing revoked).
      const revoke = page.getByRole("button", { name: "Revoke browser e2e" });
      await revoke.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Revoke this key?" });
      await dialog.waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      expect(await page.locator(`tr[data-key-id="${keyId}"].revoked`).count()).toBe(0);
      await revoke.click();
      await dialog.waitFor();
      await shot("keys-revoke");
      await dialog.getByRole("button", { name: "Revoke key" }).click();
      await page.locator(`tr[data-key-id="${keyId}"].revoked`).waitFor();
      await expect
        .poll(async () => (await readmeDecide(stack.baseUrl, secret)).status, {
          timeout: 10_000,
          interval: 250,
        })
        .toBe(401);
      const after = (await (await readmeDecide(stack.baseUrl, secret)).json()) as { error: { code: string } };
      expect(after.error.code).toBe("revoked_api_key");

      // Playground: answers with probability bars, confidence and abstained; the equivalent curl.
      await page.getByRole("link", { name: "Playground" }).click();
      await page.waitForURL(url("/console/playground"));
      expect(await page.locator("#curl").textContent()).toContain(`curl ${stack.baseUrl}/v1/decide`);
      expect(await page.locator("#curl").textContent()).toContain("$SVC_API_KEY");
      await page.getByRole("button", { name: "Decide" }).click();
      const refund = page.locator('.answer[data-question="refund"]');
      await refund.waitFor({ timeout: 60_000 });
      expect(await refund.locator("meter").count()).toBe(2);
      expect(await refund.textContent()).toMatch(/Confidence \d+\.\d %/);
      expect(await refund.textContent()).toMatch(/abstained: (yes|no)/);
      expect(await page.locator('.answer[data-question="mood"] meter').count()).toBe(3);
      expect(await page.locator("#decision-meta").textContent()).toMatch(/served by gpu/);
      await shot("playground");

      // A phone-sized screen: no sideways scrolling, the navigation still reachable.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.goto(url("/console/"));
      await page.locator("#balance").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      expect(await page.getByRole("link", { name: "Playground" }).isVisible()).toBe(true);
      await shot("overview-375");
      await page.goto(url("/console/keys"));
      await page.locator("#key-list table").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      await page.setViewportSize({ width: 1280, height: 800 });

      // Sign out: the session is gone server-side too.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(url("/console/sign-in"));
      const session = await page.evaluate(async () => (await fetch("/v1/console/session")).status);
      expect(session).toBe(401);

      // The identity-provider button (the local fake provider approves at once) signs in too.
      await page.getByRole("link", { name: "Continue with your identity provider" }).click();
      await page.waitForURL(url("/console/"));
      await page.locator("#balance").waitFor();
      expect(await page.locator(".who .email").textContent()).toMatch(/@/);

      // No script, style or connection was blocked by the CSP, and no page error happened.
      expect(problems).toEqual([]);
    });
  },
);

if (!CHROMIUM) {
  describe("the browser console in real Chromium", () => {
    it.skip("SKIPPED: no Chromium installed (apt-get install chromium, or set SVC_CHROMIUM)", () => {});
  });
}
