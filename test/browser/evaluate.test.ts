import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../scripts/stack/start-stack";
import { chromiumPath, launchChromium, signInByEmailCode, watchConsoleErrors } from "../support/browser";

const CHROMIUM = chromiumPath();

/** Three labelled tickets: a refund check and a topic pick. */
const JSONL = [
  ["The parcel arrived broken. I want my money back.", true, "delivery"],
  ["You charged my card twice this month.", false, "billing"],
  ["Refund the jacket please, it does not fit.", true, "returns"],
]
  .map(([ticket, refund, topic]) =>
    JSON.stringify({
      state: { ticket },
      questions: {
        refund: { type: "check", instructions: "Does the customer ask for a refund?" },
        topic: {
          type: "pick",
          instructions: "What is the ticket about?",
          options: { billing: null, delivery: null, returns: null },
        },
      },
      expected: { refund, topic },
    }),
  )
  .join("\n");

describe.skipIf(!CHROMIUM)(
  "the Evaluate page in real Chromium against `npm start`'s stack (real GPU worker)",
  () => {
    let stack: Stack;
    let browser: Browser;
    let page: Page;
    const dataDir = mkdtempSync(join(tmpdir(), "svc-evaluate-"));
    const problems: string[] = [];

    beforeAll(async () => {
      stack = await startStack({ dataDir });
      browser = await launchChromium(CHROMIUM!);
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        acceptDownloads: true,
      });
      page = await context.newPage();
      watchConsoleErrors(page, /status of 40[134]/, problems);
    });
    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const url = (path: string) => `${stack.baseUrl}${path}`;

    async function run(name: string, model: string): Promise<void> {
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Model", { exact: true }).fill(model);
      await page.getByLabel("Items (JSONL: one item a line)").fill(JSONL);
      await page.getByRole("button", { name: "Evaluate" }).click();
      await expect
        .poll(() => page.locator("#evaluate-form [role=status]").textContent())
        .toContain(`on ${model}`);
      // A progress bar while it runs, then the results: of this run (the previous run's stay shown until the
      // page has opened the new one).
      const detail = page
        .locator("#evaluation")
        .filter({ has: page.getByRole("heading", { name: `${name} · ${model}` }) });
      await detail.locator("#evaluation-progress").waitFor();
      await detail.locator('p.status[data-status="done"]').waitFor({ timeout: 240_000 });
    }

    it("upload → progress → reliability and risk–coverage charts, thresholds, misses, JSONL download → two versions side by side", async () => {
      // The base address in a browser is the console.
      await page.goto(stack.baseUrl);
      await page.waitForURL(url("/console/sign-in"));
      const email = `evaluate-${Date.now()}@example.com`;
      await signInByEmailCode(page, stack.baseUrl, stack.console!.emailUrl!, email);

      await page.getByRole("link", { name: "Evaluate" }).click();
      await page.waitForURL(url("/console/evaluate"));
      // The page renders after navigation: wait for it, not for the markup served before its script ran.
      await expect.poll(() => page.locator("main").textContent()).toContain("kept 30 days");

      await run("tickets on 1.3", "svc-1.3.0");
      const questions = page.locator("#evaluation section.question");
      await expect.poll(() => questions.count()).toBe(2);
      expect(await questions.nth(0).getAttribute("data-question")).toBe("refund");
      // Two uPlot charts per question, drawn on canvas.
      await expect
        .poll(() => page.locator("#evaluation section.question canvas").count())
        .toBeGreaterThanOrEqual(4);
      expect(await page.locator('#evaluation table.thresholds tr[data-target="0.9"]').count()).toBe(2);
      const missesOrNone = await page.locator("#evaluation section.question").first().textContent();
      expect(missesOrNone).toMatch(/Misses of refund|No misses/);

      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Download answers (JSONL)" }).click(),
      ]);
      const lines = readFileSync((await download.path())!, "utf8")
        .trim()
        .split("\n");
      expect(lines).toHaveLength(3);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        index: 0,
        decision: { object: "decision", model: "svc-1.3.0" },
      });

      await run("tickets on 1.4", "svc-1.4.0");
      await expect
        .poll(() => page.locator('#evaluations tbody tr[data-status="done"]').count(), { timeout: 10_000 })
        .toBe(2);
      for (const row of await page.locator("#evaluations tbody tr").all())
        await row.locator("input[type=checkbox]").check();
      const compare = page.locator("#compare-table");
      await compare.waitFor();
      const caption = await compare.locator("caption").textContent();
      expect(caption).toContain("svc-1.4.0");
      expect(caption).toContain("svc-1.3.0");
      expect(await compare.locator("tbody tr").count()).toBe(2);
      expect(problems).toEqual([]);
    });
  },
);
