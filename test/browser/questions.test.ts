// Issue 52, done when: "A Chromium test opens a question's page and screenshots the chart (`docs/console/`)."
// Four weeks of two questions' answers are written through the backend's own usage writer (recordUsageEvents:
// the usage event's one statement adds each question's hourly aggregates), at past times, because drift needs a
// finished reference week and a current one; no model runs in this stack. A pick moves from svc-1.5.0 to svc-1.5.1
// 18 days ago (a version change: marked, not drift), and both questions' answers shift 4 days ago (drift).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureNeonForNode } from "../../scripts/stack/neon-node";
import { type Stack, startStack } from "../../scripts/stack/start-stack";
import type { QuestionTally } from "../../workers/stores/question-tallies";
import { recordUsageEvents, type UsageEvent } from "../../workers/stores/usage";
import { chromiumPath, launchChromium, signInByEmailCode } from "../support/browser";
import { usageEvent } from "../support/usage-event";

const CHROMIUM = chromiumPath();
/** `npm run screenshots` (SVC_SCREENSHOTS=1) writes each page's PNG into docs/console/. */
const SHOTS = process.env.SVC_SCREENSHOTS
  ? resolve(dirname(fileURLToPath(import.meta.url)), "../../docs/console")
  : null;

const DAY = 86_400_000;
const HOUR = 3_600_000;
const PICK =
  '{"type":"pick","instructions":"Which team should handle this ticket?","options":{"billing":"Charges and invoices","shipping":"Parcels and delivery","returns":"Sending an item back"}}';
const CHECK = '{"type":"check","instructions":"Is this message spam?"}';
/** Ten answers a day: the pick's option (50/30/20 %, then 20/20/60 %) and the check's P(yes) (low, then high). */
const BEFORE = {
  pick: [0, 0, 0, 0, 0, 1, 1, 1, 2, 2],
  p: [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.6, 0.12, 0.08],
};
const AFTER = {
  pick: [0, 0, 1, 1, 2, 2, 2, 2, 2, 2],
  p: [0.95, 0.9, 0.85, 0.7, 0.6, 0.3, 0.2, 0.15, 0.1, 0.92],
};

const onehot = (n: number, i: number) => Array.from({ length: n }, (_, k) => (k === i ? 1 : 0));
const pickTally = (i: number, shifted: boolean, j: number): QuestionTally => ({
  definition: PICK,
  type: "pick",
  mix: onehot(3, i),
  p_bins: null,
  p: null,
  confidence: shifted ? 0.55 : 0.7,
  abstained: shifted && j === 9,
});
const checkTally = (p: number): QuestionTally => ({
  definition: CHECK,
  type: "check",
  mix: onehot(2, p >= 0.5 ? 1 : 0),
  p_bins: onehot(10, Math.min(9, Math.floor(p * 10))),
  p,
  confidence: Math.abs(2 * p - 1),
  abstained: false,
});

/** Days −27 … today (UTC): ten decides a day (never in the future), both questions in each. */
function fourWeeks(accountId: string, now: number): UsageEvent[] {
  const today = now - (now % DAY);
  const events: UsageEvent[] = [];
  for (let d = -27; d <= 0; d++) {
    const shifted = d >= -4;
    const plan = shifted ? AFTER : BEFORE;
    for (let j = 0; j < 10; j++) {
      const at = today + d * DAY + (1 + 2 * j) * HOUR + j * 60_000;
      if (at >= now - 60_000) continue;
      events.push(
        usageEvent(accountId, at, {
          key_id: "key_seeded",
          model: d <= -19 ? "svc-1.5.0" : "svc-1.5.1",
          questions: [pickTally(plan.pick[j]!, shifted, j), checkTally(plan.p[j]!)],
        }),
      );
    }
  }
  return events;
}

interface Drift {
  model: string;
  value: number;
  threshold: number;
  drifted: boolean;
  reference: { count: number; start: string };
}

describe.skipIf(!CHROMIUM)(
  "questions in the browser console (issue 52 item 2), in real Chromium against `npm start`'s stack",
  () => {
    let stack: Stack;
    let browser: Browser;
    let page: Page;
    const dataDir = mkdtempSync(join(tmpdir(), "svc-questions-"));
    const problems: string[] = [];

    beforeAll(async () => {
      stack = await startStack({ dataDir, gpu: false });
      browser = await launchChromium(CHROMIUM!);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      page.on("pageerror", (e) => problems.push(String(e)));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      });
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const url = (path: string) => `${stack.baseUrl}${path}`;
    /** A console read from the signed-in page (its cookie). */
    const consoleGet = <T>(path: string): Promise<T> =>
      page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.json())`) as Promise<T>;

    it("the list → a question by day: stacked mix, confidence and abstain lines, the version change marked → its drift → a new threshold → a reset", async () => {
      await page.goto(url("/console/sign-in"));
      const email = `questions-${Date.now()}@example.com`;
      await signInByEmailCode(page, stack.baseUrl, stack.console!.emailUrl!, email);
      // Signed out, the sign-in page's session probe is a 401 (and Chromium's favicon probe a 404): from here on,
      // any console error or answer of 400 or more fails the test.
      problems.length = 0;
      const { account_id } = await consoleGet<{ account_id: string }>("/v1/console/session");
      configureNeonForNode({ wsProxy: stack.env.NEON_WS_PROXY, httpEndpoint: stack.env.NEON_HTTP_ENDPOINT });
      const now = Date.now();
      const events = fourWeeks(account_id, now);
      await recordUsageEvents(
        {
          DATABASE_URL: stack.env.DATABASE_URL!,
          NEON_WS_PROXY: stack.env.NEON_WS_PROXY,
          NEON_HTTP_ENDPOINT: stack.env.NEON_HTTP_ENDPOINT,
        },
        events,
      );

      // "See their questions": as written, first and last asked, volume, versions, calibration / review rule.
      await page.getByRole("link", { name: "Questions" }).click();
      await page.waitForURL(url("/console/questions"));
      const rows = page.locator("#question-list tr[data-question-id]");
      await expect.poll(() => rows.count()).toBe(2);
      const pick = rows.filter({ hasText: "Which team should handle this ticket?" });
      expect(await pick.locator("td.question").textContent()).toBe(
        "pick: Which team should handle this ticket?options: billing, shipping, returns",
      );
      // Counted by hour: the hours starting in the last 7 days.
      const lastWeek = events.filter((e) => e.at - (e.at % HOUR) >= now - 7 * DAY).length;
      expect(await pick.locator("td.count").textContent()).toBe(String(lastWeek));
      expect(await pick.locator("td.versions").textContent()).toBe("svc-1.5.1, svc-1.5.0");
      expect(await pick.locator("td.calibration").textContent()).toBe("none");
      expect(await pick.locator("td.review-rule").textContent()).toBe("none");
      expect(await pick.textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      const pickId = (await pick.getAttribute("data-question-id"))!;

      // "See one question over time": the charts (uPlot, on canvas), the version change marked in words too.
      await pick.getByRole("link").click();
      await page.waitForURL(url(`/console/questions#${pickId}`));
      expect(await page.locator("#question-title").textContent()).toBe(
        "pick: Which team should handle this ticket?",
      );
      const mix = page.locator("#question-mix");
      await mix.locator("canvas").waitFor();
      await page.locator("#question-lines canvas").waitFor();
      expect(await mix.locator("figcaption").textContent()).toBe(
        "Answer mix: the share of each option, by day (UTC)",
      );
      expect(await mix.locator(".u-legend .u-series th").allTextContents()).toEqual([
        "Time",
        "returns",
        "shipping",
        "billing",
      ]);
      expect(await page.locator("#question-lines .u-legend .u-series th").allTextContents()).toEqual([
        "Time",
        "Mean confidence",
        "Abstain rate",
      ]);
      expect(await page.locator("#version-changes").textContent()).toMatch(
        /^Version changes \(dashed lines; not drift\): \d+ \w+: svc-1\.5\.0 → svc-1\.5\.1\.$/,
      );
      await page.locator("details.numbers summary").click();
      const versions = await page.locator("#question-numbers tbody tr > :nth-child(2)").allTextContents();
      expect(new Set(versions.filter((v) => v !== "—"))).toEqual(new Set(["svc-1.5.0", "svc-1.5.1"]));
      await page.locator("details.numbers summary").click();

      // "Hear when it drifts": the drift block, as the API reads it.
      const drift = page.locator("#drift");
      await drift.locator(".verdict").waitFor();
      const api = await consoleGet<Drift>(`/v1/console/questions/${pickId}/drift`);
      expect(api).toMatchObject({ model: "svc-1.5.1", threshold: 0.1, drifted: true });
      expect(await drift.locator(".verdict").getAttribute("data-kind")).toBe("drifted");
      expect(await drift.locator(".verdict").textContent()).toBe(
        `drifted Drifted: ${api.value.toFixed(3)} is above the threshold 0.1 on svc-1.5.1.`,
      );
      const fact = (key: string) => drift.locator(`[data-fact="${key}"] dd`).textContent();
      expect(await fact("statistic")).toBe("Jensen–Shannon distance");
      expect(await fact("value")).toBe(api.value.toFixed(3));
      expect(await fact("threshold")).toBe("0.1");
      expect(await fact("reference")).toBe(
        `the first week asked: ${api.reference.start.slice(0, 10)} to ${new Date(Date.parse(api.reference.start) + 7 * DAY).toISOString().slice(0, 10)} (not included), 70 answers`,
      );
      expect(await fact("drifted")).toBe("yes");
      if (SHOTS) await page.screenshot({ path: join(SHOTS, "questions.png"), fullPage: true });

      // A threshold above the value: no longer drifted.
      await drift.getByLabel("Threshold").fill("0.5");
      await drift.getByRole("button", { name: "Save threshold" }).click();
      await expect.poll(() => drift.locator(".notice.success").textContent()).toBe("Threshold set to 0.5.");
      expect(await drift.locator(".verdict").getAttribute("data-kind")).toBe("steady");
      expect(await fact("threshold")).toBe("0.5");
      expect(await consoleGet<Drift>(`/v1/console/questions/${pickId}/drift`)).toMatchObject({
        threshold: 0.5,
        drifted: false,
        value: api.value,
      });

      // Reset the reference, behind a confirmation: Cancel keeps it; Reset restarts it from now.
      await drift.getByRole("button", { name: "Reset reference" }).click();
      const dialog = page.getByRole("dialog", { name: "Reset the reference week?" });
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(await drift.locator(".verdict").getAttribute("data-kind")).toBe("steady");
      await drift.getByRole("button", { name: "Reset reference" }).click();
      await dialog.getByRole("button", { name: "Reset reference" }).click();
      await expect.poll(() => drift.locator(".verdict").getAttribute("data-kind")).toBe("pending");
      expect(await fact("value")).toBe("not measured yet");
      expect(await fact("reference")).toMatch(/^the first full week after your reset: /);

      // By hour: the last 7 days, 24 buckets a day.
      await page.getByLabel("Granularity").selectOption("hour");
      await expect
        .poll(() => mix.locator("figcaption").textContent())
        .toBe("Answer mix: the share of each option, by hour (UTC)");
      expect(await page.locator("#question-numbers tbody tr").count()).toBe(7 * 24);

      // A check: the ten bins of P(yes) stacked, its mean P(yes) a line.
      await page.getByRole("link", { name: "← All questions" }).click();
      await page.waitForURL(url("/console/questions"));
      await rows.filter({ hasText: "Is this message spam?" }).getByRole("link").click();
      await mix.locator("canvas").waitFor();
      const legend = await mix.locator(".u-legend .u-series th").allTextContents();
      expect(legend).toHaveLength(12);
      expect(legend.slice(0, 2)).toEqual(["Time", "0.9–1.0"]);
      expect(legend.at(-1)).toBe("Mean P(yes)");
      expect(await page.locator("#question-numbers thead th").allTextContents()).toContain("Mean P(yes)");
      await drift.locator(".verdict").waitFor();
      expect(await drift.locator(".verdict").getAttribute("data-kind")).toBe("drifted");
      if (SHOTS) await page.screenshot({ path: join(SHOTS, "questions-check.png"), fullPage: true });

      // A phone-sized screen: no sideways scrolling.
      await page.setViewportSize({ width: 375, height: 812 });
      await page.reload();
      await mix.locator("canvas").waitFor();
      await drift.locator(".verdict").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      expect(problems).toEqual([]);
    });
  },
);
