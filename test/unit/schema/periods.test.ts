import { describe, expect, it } from "vitest";
import { dayOf, monthOf, nextWeekStart, secondsToUtcMidnight, weekOf } from "../../../schema/periods";

describe("UTC periods", () => {
  it("ISO week starts Monday 00:00 UTC", () => {
    expect(weekOf(Date.UTC(2026, 10, 22, 23, 59))).toBe("2026-11-16"); // Sunday
    expect(weekOf(Date.UTC(2026, 10, 23, 0, 0))).toBe("2026-11-23"); // Monday
    expect(weekOf(Date.UTC(2027, 0, 1))).toBe("2026-12-28"); // across the year
  });
  it("month and day are UTC calendar ones", () => {
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 59))).toBe("2026-12");
    expect(dayOf(Date.UTC(2026, 11, 31, 23, 59))).toBe("2026-12-31");
  });
  it("'test_daily_quota: retry-after is the time until 00:00 UTC'", () => {
    expect(secondsToUtcMidnight(Date.UTC(2026, 10, 21, 23, 59, 30))).toBe(30);
    expect(secondsToUtcMidnight(Date.UTC(2026, 10, 21, 0, 0, 0))).toBe(86_400);
  });
});

describe("the plan allowance resets at Monday 00:00 UTC", () => {
  it.each([
    [Date.UTC(2026, 10, 22, 23, 59), Date.UTC(2026, 10, 23)], // Sunday → the next day
    [Date.UTC(2026, 10, 23, 0, 0), Date.UTC(2026, 10, 30)], // Monday 00:00 → a week later
    [Date.UTC(2026, 10, 25, 12, 0), Date.UTC(2026, 10, 30)],
  ])("%i → %i", (now, reset) => expect(nextWeekStart(now)).toBe(reset));
});
