import { createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureNeonForNode } from "../../scripts/stack/neon-node";
import { type Stack, startStack } from "../../scripts/stack/start-stack";
import { BATCH_CLIENT_NAME } from "../../workers/batches/runner";
import { recordUsageEvents } from "../../workers/stores/usage";
import { chromiumPath, launchChromium, signInByEmailCode, watchConsoleErrors } from "../support/browser";
import { usageEvent } from "../support/usage-event";

const CHROMIUM = chromiumPath();
/** `npm run screenshots` (SVC_SCREENSHOTS=1) writes each page's PNG into docs/console/. */
const SHOTS = process.env.SVC_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../docs/console")
  : null;

const line = (custom_id: string, ticket: string) =>
  JSON.stringify({
    custom_id,
    body: {
      state: { ticket },
      questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
    },
  });
const VALID = `${[
  line("t-1", "The parcel arrived broken. I want my money back."),
  line("t-2", "You charged my card twice this month."),
  line("t-3", "Refund the jacket please, it does not fit."),
].join("\n")}\n`;
/** Line 2 (counted from 1) asks a question of an unknown type. */
const INVALID = `${line("t-1", "ok")}\n${JSON.stringify({
  custom_id: "t-2",
  body: { state: "x", questions: { q: { type: "guess", instructions: "?" } } },
})}\n`;

/** What the local endpoint received: each call's signature header and body. */
interface Received {
  signature: string;
  body: string;
}

describe.skipIf(!CHROMIUM)(
  "Batches and Settings → Webhooks in the browser console (issue 42), in real Chromium against `npm start`'s stack",
  () => {
    let stack: Stack;
    let browser: Browser;
    let page: Page;
    let hook: Server;
    const received: Received[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), "svc-batches-"));
    const problems: string[] = [];

    beforeAll(async () => {
      // A test batch is created, listed and cancelled without a model: no GPU worker (its lines wait, 503).
      stack = await startStack({ dataDir, gpu: false });
      hook = createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => {
          body += c.toString("utf8");
        });
        req.on("end", () => {
          received.push({ signature: String(req.headers["svc-signature"] ?? ""), body });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
      browser = await launchChromium(CHROMIUM!);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.baseUrl });
      page = await context.newPage();
      // 404: no webhook endpoint yet; 4xx: the invalid upload, refused in words.
      watchConsoleErrors(page, /status of 4\d\d/, problems);
      if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      await new Promise((r) => hook?.close(r));
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const url = (path: string) => `${stack.baseUrl}${path}`;
    const shot = async (name: string, el: Locator | Page = page) => {
      if (SHOTS) await el.screenshot({ path: join(SHOTS, `${name}.png`) });
    };

    it("set a webhook endpoint (secret shown once) → upload by the file picker (line error in words) and by the drop zone → listed with progress → cancel (signed batch.cancelled event) → delete", async () => {
      await page.goto(url("/console/sign-in"));
      const email = `batches-${Date.now()}@example.com`;
      await signInByEmailCode(page, stack.baseUrl, stack.console!.emailUrl!, email);

      // Settings → Webhooks: the events it sends, then the secret shown once with a copy button.
      await page.getByRole("link", { name: "Settings" }).click();
      await page.waitForURL(url("/console/settings"));
      const webhooks = page.getByRole("region", { name: "Webhooks" });
      await expect.poll(() => webhooks.textContent()).toContain("No endpoint: no events are sent.");
      for (const event of ["batch.completed", "batch.failed", "batch.expired", "batch.cancelled"])
        expect(await webhooks.textContent()).toContain(event);
      const endpoint = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/svc/hooks`;
      await page.getByLabel("Endpoint URL").fill(endpoint);
      await page.getByRole("button", { name: "Save endpoint" }).click();
      const secretInput = page.getByLabel("Signing secret", { exact: true });
      await secretInput.waitFor();
      const secret = await secretInput.inputValue();
      expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      expect(await webhooks.textContent()).toContain("it is shown this once and cannot be shown again");
      expect(await page.locator("#webhook-url").textContent()).toBe(endpoint);
      await page.getByRole("button", { name: "Copy" }).click();
      await expect.poll(() => page.evaluate("navigator.clipboard.readText()")).toBe(secret);
      await shot("webhooks", webhooks);
      // Shown once: a fresh page has the URL and no secret.
      await page.reload();
      await page.locator("#webhook-url").waitFor();
      expect(await page.locator("#webhook-url").textContent()).toBe(endpoint);
      expect(await page.getByLabel("Signing secret", { exact: true }).count()).toBe(0);

      await page.getByRole("link", { name: "Batches" }).click();
      await page.waitForURL(url("/console/batches"));
      await expect.poll(() => page.locator("#batches").textContent()).toContain("No batches yet");

      // The file picker; the first invalid line is said counted from 1, with where in the line.
      await page.getByLabel("Choose a file").setInputFiles({
        name: "invalid.jsonl",
        mimeType: "application/jsonl",
        buffer: Buffer.from(INVALID),
      });
      expect(await page.locator("#batch-picked").textContent()).toMatch(/^invalid\.jsonl \(1 KB\)$/);
      await page.getByRole("button", { name: "Upload batch" }).click();
      await expect
        .poll(() => page.locator("#batch-form-status [role=alert]").textContent())
        .toMatch(/^Line 2: .+ \(body\.questions\.q[\w./]*\) \[\w+\]$/);

      // The drop zone, live mode said to be charged; test mode (the default) is what is sent.
      expect(await page.locator("#batch-form").textContent()).toContain("charged to your balance");
      const file = await page.evaluateHandle(`(() => {
        const dt = new DataTransfer();
        dt.items.add(new File([${JSON.stringify(VALID)}], "tickets.jsonl"));
        return dt;
      })()`);
      await page.locator("#batch-drop").dispatchEvent("dragover", { dataTransfer: file });
      await page.locator("#batch-drop").dispatchEvent("drop", { dataTransfer: file });
      expect(await page.locator("#batch-picked").textContent()).toMatch(/^tickets\.jsonl/);
      await page.getByRole("button", { name: "Upload batch" }).click();
      await expect
        .poll(() => page.locator("#batch-form-status [role=status]").textContent())
        .toMatch(/^Queued batch_\w{26}: 3 lines, test\.$/);
      const row = page.locator("#batches tr[data-batch-id]");
      await expect.poll(() => row.count()).toBe(1);
      const id = (await row.getAttribute("data-batch-id"))!;
      expect(await row.locator("td.progress").textContent()).toBe(" 0 done + 0 failed of 3");
      expect(await row.locator("progress").getAttribute("max")).toBe("3");
      expect(await row.locator("td.cost").textContent()).toBe("€0.00");
      expect(await row.locator("td.status").getAttribute("data-status")).toMatch(/^(queued|running)$/);
      await shot("batches");

      // Cancel, behind the console's confirmation: Cancel keeps it, Cancel batch cancels it.
      await row.getByRole("button", { name: `Cancel ${id}` }).click();
      const dialog = page.getByRole("dialog", { name: "Cancel this batch?" });
      await dialog.waitFor();
      await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
      await dialog.waitFor({ state: "hidden" });
      await row.getByRole("button", { name: `Cancel ${id}` }).click();
      await dialog.getByRole("button", { name: "Cancel batch" }).click();
      await expect.poll(() => row.getAttribute("data-status")).toBe("cancelled");
      expect(await row.locator("td.status").textContent()).toBe("Cancelled");

      // The endpoint gets batch.cancelled, signed with the secret shown once.
      await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
      const call = received[0]!;
      const event = JSON.parse(call.body) as { type: string; data: { object: { id: string } } };
      expect(event).toMatchObject({ type: "batch.cancelled", data: { object: { id, status: "cancelled" } } });
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(call.signature)!;
      expect(v1).toBe(createHmac("sha256", secret).update(`${t}.${call.body}`).digest("hex"));

      // A finished batch can be deleted (with a confirmation).
      await row.getByRole("button", { name: `Delete ${id}` }).click();
      await page
        .getByRole("dialog", { name: "Delete this batch?" })
        .getByRole("button", { name: "Delete batch" })
        .click();
      await expect.poll(() => page.locator("#batches").textContent()).toContain("No batches yet");

      // Usage: batch lines (usage events of client (batch), as the runner writes them) shown apart.
      const { account_id } = (await page.evaluate(`fetch("/v1/console/session").then((r) => r.json())`)) as {
        account_id: string;
      };
      const db = {
        DATABASE_URL: stack.env.DATABASE_URL!,
        NEON_WS_PROXY: stack.env.NEON_WS_PROXY,
        NEON_HTTP_ENDPOINT: stack.env.NEON_HTTP_ENDPOINT,
      };
      configureNeonForNode({ wsProxy: db.NEON_WS_PROXY, httpEndpoint: db.NEON_HTTP_ENDPOINT });
      const hourAgo = Date.now() - 3_600_000;
      await recordUsageEvents(db, [
        ...[0, 1, 2].map((i) =>
          usageEvent(account_id, hourAgo + i, {
            key_id: `console_${account_id}`,
            client_name: BATCH_CLIENT_NAME,
            charge_micro_cents: 50_000_000,
          }),
        ),
        usageEvent(account_id, hourAgo, {
          key_id: `console_${account_id}`,
          input_tokens: 300,
          charge_micro_cents: 150_000_000,
        }),
      ]);
      await page.getByRole("link", { name: "Usage" }).click();
      await page.waitForURL(url("/console/usage"));
      await page.getByLabel("Group by").selectOption("none");
      const batchRow = page.locator('#usage-totals tr[data-group="batch-lines"]');
      await expect.poll(() => batchRow.locator("td.requests").textContent()).toBe("3 (75.0 %)");
      expect(await batchRow.locator("td").allTextContents()).toEqual([
        "3 (75.0 %)",
        "300 (50.0 %)",
        "€1.50 (50.0 %)",
        "0",
      ]);
      // The chart draws all calls and the batch lines among them.
      await expect
        .poll(() => page.locator("#usage-chart .u-legend .u-series").allTextContents())
        .toEqual([
          expect.stringContaining("Time"),
          expect.stringContaining("All calls"),
          expect.stringContaining("Batch lines"),
        ]);
      await shot("usage-batch-lines");

      // Removing the endpoint, behind a confirmation.
      await page.getByRole("link", { name: "Settings" }).click();
      await page.getByRole("button", { name: "Remove endpoint" }).click();
      await page
        .getByRole("dialog", { name: "Remove the webhook endpoint?" })
        .getByRole("button", { name: "Remove endpoint" })
        .click();
      await expect
        .poll(() => page.locator("#webhook-current").textContent())
        .toBe("No endpoint: no events are sent.");

      // A phone-sized screen: no sideways scrolling.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.goto(url("/console/batches"));
      await page.locator("#batch-drop").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      expect(problems).toEqual([]);
    });
  },
);
