import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withNodeClient } from "../../scripts/stack/neon-node";
import { type Stack, startStack } from "../../scripts/stack/start-stack";
import { chromiumPath, launchChromium, signInByEmailCode, watchConsoleErrors } from "../support/browser";
import {
  insertDoneEvaluation,
  REFUND_CHECK,
  storeEvaluationMetrics,
  underConfidentChecks,
} from "../support/calibrations";

const CHROMIUM = chromiumPath();
/** `npm run screenshots` (SVC_SCREENSHOTS=1) writes each page's PNG into docs/console/. */
const SHOTS = process.env.SVC_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../docs/console")
  : null;

interface Preview {
  model: string;
  method: string;
  metrics: {
    after: { thresholds: Array<{ target: number; min_confidence: number | null }> };
    methods: Array<{ method: string; metrics: { nll: number } }>;
  };
}

describe.skipIf(!CHROMIUM)(
  "calibrations in the browser console (issue 44), in real Chromium against `npm start`'s stack",
  () => {
    let stack: Stack;
    let browser: Browser;
    let page: Page;
    const dataDir = mkdtempSync(join(tmpdir(), "svc-calibrations-"));
    const problems: string[] = [];

    beforeAll(async () => {
      // The runs are seeded with their answers and the fits run in the Worker: no model is needed.
      stack = await startStack({ dataDir, gpu: false });
      browser = await launchChromium(CHROMIUM!);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      // 422: the fit that would not help is refused (and shown in words).
      watchConsoleErrors(page, /status of (40[134]|422)/, problems);
      if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const url = (path: string) => `${stack.baseUrl}${path}`;
    const shot = async (name: string, el: Locator | Page = page) => {
      if (SHOTS) await el.screenshot({ path: join(SHOTS, `${name}.png`) });
    };
    /** A console call from the signed-in page (its cookie, and the CSRF header on changes). */
    const consoleFetch = <T>(method: string, path: string, body?: unknown): Promise<[number, T]> =>
      page.evaluate(`(async () => {
        const s = await (await fetch("/v1/console/session")).json();
        const r = await fetch(${JSON.stringify(path)}, {
          method: ${JSON.stringify(method)},
          headers: { "content-type": "application/json", "x-svc-csrf": s.csrf_token },
          body: ${body === undefined ? "undefined" : JSON.stringify(JSON.stringify(body))},
        });
        return [r.status, await r.json()];
      })()`) as Promise<[number, T]>;

    it("Evaluate → Calibrate → before / after, thresholds and a decide to paste → Apply → the list → svc-1 moved on: re-run → Remove", async () => {
      await page.goto(url("/console/sign-in"));
      const email = `calibrate-${Date.now()}@example.com`;
      await signInByEmailCode(page, stack.baseUrl, stack.console!.emailUrl!, email);
      const [, session] = await consoleFetch<{ account_id: string }>("GET", "/v1/console/session");

      // Done runs of labelled checks whose answers kept their distributions, as the runner leaves them.
      const target = { database: stack.env.DATABASE_URL!, wsProxy: stack.env.NEON_WS_PROXY };
      const runs = await withNodeClient(target.database, { wsProxy: target.wsProxy }, async (q) => {
        const fitted = await insertDoneEvaluation(q, session.account_id, underConfidentChecks(200), {
          name: "refund labels",
        });
        const coinFlips = Array.from({ length: 60 }, (_, i) => ({ pYes: 0.5, yes: i % 2 === 0 }));
        const flat = await insertDoneEvaluation(q, session.account_id, coinFlips, { name: "coin flips" });
        // Two on an earlier version: svc-1 has moved on from them (one's run is then deleted).
        const older = await insertDoneEvaluation(q, session.account_id, underConfidentChecks(100, 3), {
          model: "svc-1.3.0",
          name: "refund labels, March",
        });
        const gone = await insertDoneEvaluation(q, session.account_id, underConfidentChecks(100, 5), {
          model: "svc-1.3.0",
          name: "refund labels, February",
          question: { ...REFUND_CHECK, criteria: "Money back, not a replacement." },
        });
        for (const id of [fitted, flat]) await storeEvaluationMetrics(q, id);
        return { fitted, flat, older, gone };
      });

      // Evaluate: the run's question has a Calibrate button; it shows the preview, stored nowhere.
      await page.goto(url(`/console/evaluate#${runs.fitted}`));
      const section = page.locator('#evaluation section.question[data-question="refund"]');
      await section.waitFor();
      await section.getByRole("button", { name: "Calibrate refund" }).click();
      const view = section.locator(".calibration");
      await view.locator("table.calibration-metrics").waitFor({ timeout: 60_000 });
      const [status, preview] = await consoleFetch<Preview>("POST", "/v1/console/calibration-previews", {
        evaluation: runs.fitted,
        question: "refund",
      });
      expect(status).toBe(200);
      // Before and after reliability diagrams (uPlot, on canvas), side by side.
      await expect.poll(() => view.locator("canvas").count()).toBeGreaterThanOrEqual(2);
      expect(await view.locator("figcaption").allTextContents()).toEqual([
        expect.stringMatching(/^Before: the version's map \(ECE-15 0\.\d{3}\)$/),
        expect.stringMatching(/^After: calibrated on your labels \(ECE-15 0\.\d{3}\)$/),
      ]);
      const metric = (key: string, side: "before" | "after") =>
        view.locator(`tr[data-metric="${key}"] td.${side}`).textContent();
      expect(await view.locator('tr[data-metric="method"]').textContent()).toContain("temperature and bias");
      expect(await metric("n", "before")).toBe("200");
      expect(await metric("ece15", "after")).toMatch(/^0\.\d{3} \(0\.\d{3}\)$/);
      expect(Number(await metric("nll", "after"))).toBeLessThan(Number(await metric("nll", "before")));
      expect(await metric("auc", "before")).toMatch(/^0\.\d{3}$/);
      expect(await metric("brier", "after")).toMatch(/^0\.\d{4}$/);
      // Which method won and why (issue 49): the version's own answers and every method tried, on the same
      // held-out folds (NLL, accuracy, AUC, ECE-15), the chosen one marked, the rule in words.
      const tried = view.locator("table.calibration-methods tbody tr");
      expect(await tried.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-method")))).toEqual([
        "version",
        ...preview.metrics.methods.map((m) => m.method),
      ]);
      expect(preview.metrics.methods.map((m) => m.method)).toContain("state_words");
      expect(await view.locator("table.calibration-methods tr.chosen").getAttribute("data-method")).toBe(
        preview.method,
      );
      for (const m of preview.metrics.methods)
        expect(
          await view.locator(`table.calibration-methods tr[data-method="${m.method}"] td.nll`).textContent(),
        ).toBe(m.metrics.nll.toFixed(4));
      expect(
        await view.locator('table.calibration-methods tr[data-method="state_words"] td.auc').textContent(),
      ).toMatch(/^0\.\d{3}$/);
      expect(await view.locator(".method-reason").textContent()).toMatch(
        /^Chosen: temperature and bias, the map with the lowest held-out NLL .*Reading the state wins only when/,
      );
      // Uncalibrated and calibrated thresholds for 90, 95 and 99 % accuracy.
      const thresholds = view.locator("table.calibration-thresholds tbody tr");
      expect(await thresholds.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-target")))).toEqual([
        "0.9",
        "0.95",
        "0.99",
      ]);
      // The decide to paste: the question as written, its exact version, the calibrated 95 % threshold.
      const at95 = preview.metrics.after.thresholds.find((t) => t.target === 0.95)!.min_confidence;
      const curl = (await view.locator("pre.curl").textContent())!;
      expect(curl).toContain(`curl ${stack.baseUrl}/v1/decide`);
      expect(curl).toContain('"model":"svc-1.5.1"');
      expect(curl).toContain(`"refund":{"type":"check","instructions":"${REFUND_CHECK.instructions}"`);
      expect(curl).toContain(at95 === null ? '"instructions"' : `"min_confidence":${at95}`);
      await view.scrollIntoViewIfNeeded();
      await shot("evaluate-calibrate", section.locator(".calibrate"));
      const [, before] = await consoleFetch<{ data: unknown[] }>("GET", "/v1/console/calibrations");
      expect(before.data).toEqual([]);

      await view.getByRole("button", { name: "Apply" }).click();
      await expect
        .poll(() => view.locator(".notice.success").textContent())
        .toMatch(/^Applied as calib_\w+: decides of refund on svc-1\.5\.1 answer with it now\./);

      // A fit that would not help is refused, in words, and nothing crashes.
      await page.goto(url(`/console/evaluate#${runs.flat}`));
      const flat = page
        .locator("#evaluation")
        .filter({ has: page.getByRole("heading", { name: "coin flips · svc-1.5.1" }) })
        .locator('section.question[data-question="refund"]');
      await flat.getByRole("button", { name: "Calibrate refund" }).click();
      await expect
        .poll(() => flat.locator(".calibration [role=alert]").textContent(), { timeout: 60_000 })
        .toMatch(
          /^Calibrating would not make this question's answers better, so nothing was applied\. .*NLL/,
        );

      // Two calibrations on svc-1.3.0 (through the API), then one's run is deleted.
      const made: Record<string, string> = {};
      for (const run of ["older", "gone"] as const) {
        const [code, c] = await consoleFetch<{ id: string }>("POST", "/v1/console/calibrations", {
          evaluation: runs[run],
          question: "refund",
        });
        expect(code).toBe(201);
        made[run] = c.id;
      }
      expect((await consoleFetch("DELETE", `/v1/console/evaluations/${runs.gone}`))[0]).toBe(200);

      // The list: its own page in the navigation.
      await page.getByRole("link", { name: "Calibrations" }).click();
      await page.waitForURL(url("/console/calibrations"));
      const rows = page.locator("#calibration-list tr[data-calibration-id]");
      await expect.poll(() => rows.count()).toBe(3);
      const applied = rows.filter({ hasText: "svc-1.5.1" });
      expect(await applied.textContent()).toContain(`refund check: ${REFUND_CHECK.instructions}`);
      expect(await applied.locator("td.num").first().textContent()).toBe("200");
      expect(await applied.locator("td.method").textContent()).toBe("temperature and bias");
      expect(await applied.locator("td.ece").textContent()).toMatch(/^0\.\d{3} → 0\.\d{3}$/);
      expect(await applied.locator("td.status").textContent()).toBe("active");
      expect(await applied.textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      // svc-1 answers with svc-1.5.1: the svc-1.3.0 ones say so; one offers a re-run, the other's run is gone.
      const moved = page.locator(`tr[data-moved="${made.older}"]`);
      expect(await moved.textContent()).toContain(
        "svc-1 now answers with svc-1.5.1: this calibration applies only to decides that name svc-1.3.0",
      );
      expect(await page.locator(`tr[data-moved="${made.gone}"]`).textContent()).toMatch(
        /The run it was fitted on \(eval_\w+\) is gone \(runs are kept 30 days\)/,
      );
      expect(await page.locator(`tr[data-moved="${made.gone}"] button`).count()).toBe(0);
      await shot("calibrations");

      await moved.getByRole("button", { name: "Re-run on svc-1.5.1" }).click();
      await expect
        .poll(() => moved.locator(".notice.success").textContent())
        .toMatch(
          /^Queued “refund labels, March on svc-1\.5\.1”: 100 items on svc-1\.5\.1\. When it is done, Calibrate refund on it again/,
        );
      const [, list] = await consoleFetch<{
        data: Array<{ id: string; name: string; model: string; progress: { total: number } }>;
      }>("GET", "/v1/console/evaluations");
      const rerun = list.data.find((e) => e.name === "refund labels, March on svc-1.5.1")!;
      expect(rerun).toMatchObject({ model: "svc-1.5.1", progress: { total: 100 } });
      const [, items] = await consoleFetch<{ data: Array<{ state: unknown; questions: unknown }> }>(
        "GET",
        `/v1/console/evaluations/${rerun.id}/items?limit=1`,
      );
      expect(items.data[0]).toMatchObject({ state: "Ticket 0", questions: { refund: REFUND_CHECK } });
      // No model runs in this stack: the re-run is cancelled and deleted here.
      await consoleFetch("POST", `/v1/console/evaluations/${rerun.id}/cancel`);
      await consoleFetch("DELETE", `/v1/console/evaluations/${rerun.id}`);

      // Remove, with a confirmation: Cancel keeps it; Remove makes it inactive.
      await applied.getByRole("button", { name: "Remove refund on svc-1.5.1" }).click();
      const dialog = page.getByRole("dialog", { name: "Remove this calibration?" });
      await dialog.waitFor();
      await shot("calibrations-remove");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(await applied.locator("td.status").textContent()).toBe("active");
      await applied.getByRole("button", { name: "Remove refund on svc-1.5.1" }).click();
      await dialog.getByRole("button", { name: "Remove calibration" }).click();
      await expect.poll(() => applied.locator("td.status").textContent()).toMatch(/^inactive since /);
      expect(await applied.getByRole("button").count()).toBe(0);
      expect(await page.locator(".notice.success").first().textContent()).toBe(
        "Removed the calibration of refund on svc-1.5.1.",
      );

      // A phone-sized screen: no sideways scrolling.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.reload();
      await rows.first().waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      expect(problems).toEqual([]);
    });
  },
);
