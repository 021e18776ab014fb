import { afterEach, describe, expect, it, vi } from "vitest";
import { forgetRules, mayPredateChange } from "../../../workers/reviews/capture";
import { KEY_CACHE_TTL_MS } from "../../../workers/stores/keys";

describe("issue 51: a rule made just before a decide keeps it, however long the decide takes", () => {
  afterEach(() => vi.useRealTimers());

  it("a decide that began within the key cache's TTL of the change may carry the old generation, even when it ends 17 s later (a busy GPU)", () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    forgetRules("acc_slow");
    vi.advanceTimersByTime(17_000);
    // The browser test's first decide began 0.1 s after the rule was made and ended 17 s later: it was not kept.
    expect(mayPredateChange("acc_slow", t0 + 100)).toBe(true);
    // A decide that began after the cache's TTL read the new generation with its key: nothing extra to do.
    expect(mayPredateChange("acc_slow", t0 + KEY_CACHE_TTL_MS + 1)).toBe(false);
    expect(mayPredateChange("acc_never_changed", t0)).toBe(false);
  });
});
