import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("answers livez", async () => {
  const res = await SELF.fetch("http://svc.test/livez");
  expect(await res.text()).toBe("ok");
});
