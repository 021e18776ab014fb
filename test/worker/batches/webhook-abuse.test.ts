// Issue 50 item 6: a webhook endpoint must not make the service call its own network: not by its URL, not by
// answering a delivery with a redirect.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deliverDueEvents } from "../../../workers/batches/webhooks";
import { database } from "../../../workers/stores/db";
import { CONSOLE_SECRET, consoleCall, signIn } from "../../support/console";
import { expectError } from "../../support/worker-http";

const control = (env as unknown as { STACK_CONTROL_URL: string }).STACK_CONTROL_URL;
const id = () => crypto.randomUUID().replaceAll("-", "").slice(0, 20).toUpperCase();

describe("issue 50 item 6: webhook deliveries", () => {
  it("'deliver with redirects not followed (a 3xx is a failed delivery)': a 307 to an internal address is not followed and the event is retried later", async () => {
    const db = database(env);
    const account = `acc_REDIRECT${id()}`;
    const target = `hook-${id()}`;
    const url = `${control}/redirect?to=${encodeURIComponent(`${control}/hits/${target}`)}`;
    await db
      .sql()
      .query("INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, $2, $3)", [
        account,
        `we_${id()}`,
        url,
      ]);
    const event = `evt_${id()}`;
    await db
      .sql()
      .query(
        "INSERT INTO webhook_deliveries (id, account_id, batch_id, type, payload) VALUES ($1, $2, 'batch_x', 'batch.completed', '{}')",
        [event, account],
      );
    expect(await deliverDueEvents({ db, serverSecret: CONSOLE_SECRET }, account)).toBe(1);
    const hits = (await (await fetch(`${control}/hits/${target}/count`)).json()) as number;
    expect(hits).toBe(0);
    const [row] = (await db
      .sql()
      .query(
        "SELECT delivered_at, last_status, next_at > now() AS later FROM webhook_deliveries WHERE id = $1",
        [event],
      )) as { delivered_at: string | null; last_status: number; later: boolean }[];
    expect(row).toMatchObject({ delivered_at: null, last_status: 307, later: true });
  });

  it("the console refuses endpoint URLs that are not globally routable, in workerd (the IP library bundles)", async () => {
    const s = await signIn();
    for (const url of [
      "https://[::a9fe:a9fe]/",
      "https://[::ffff:169.254.169.254]/",
      "https://[64:ff9b::a9fe:a9fe]/",
      "https://[2002:a9fe:a9fe::1]/",
      "https://[fe90::1]/",
      "https://[ff02::1]/",
      "https://100.64.0.1/",
      "https://198.18.0.1/",
      "https://224.0.0.1/",
      "https://api.localhost/",
    ])
      await expectError(
        await consoleCall("POST", "/v1/console/webhook-endpoint", {
          cookie: s.cookie,
          csrf: s.csrf,
          body: { url },
        }),
        422,
        "invalid_value",
        "url",
      );
    const ok = await consoleCall("POST", "/v1/console/webhook-endpoint", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { url: "https://[2606:4700::6810:84e5]/hook" },
    });
    expect(ok.status).toBe(200);
  });
});
