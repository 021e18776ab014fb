import { describe, expect, it } from "vitest";
import { clientOf } from "../../../workers/billing/usage-events";

describe("'user-agent: client name and version are kept with request metadata' (the first product token)", () => {
  it.each([
    ["svc-sdk/1.2.0 node/20.20.2", "svc-sdk", "1.2.0"],
    ["curl/8.5.0", "curl", "8.5.0"],
    ["Mozilla/5.0 (X11; Linux x86_64)", "Mozilla", "5.0"],
    ["python-requests", "python-requests", null],
    ["", null, null],
    ["(no product)", null, null],
    [undefined, null, null],
  ])("%s → %s %s", (ua, name, version) => expect(clientOf(ua)).toEqual({ name, version }));
});
