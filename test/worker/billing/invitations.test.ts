import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inviteWaiting } from "../../../workers/billing/seat-service";
import type { EmailMessage, EmailSender } from "../../../workers/clients/email";
import type { Env } from "../../../workers/env";
import { findOrCreateAccountByEmail } from "../../../workers/stores/accounts";
import { database } from "../../../workers/stores/db";

const db = database(env as unknown as Env);

describe("a freed seat invites the next account on the waiting list, and tells it by e-mail", () => {
  it("the invited account gets one e-mail naming the plan and the 72 hours; a failing e-mail API leaves the hold", async () => {
    const sent: EmailMessage[] = [];
    const email: EmailSender = { configured: true, send: async (m) => void sent.push(m) };
    const address = `waiting-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { account } = await findOrCreateAccountByEmail(db, address);
    await db.sql().query("INSERT INTO waiting_list (account_id, plan_id) VALUES ($1, 'hot')", [account.id]);
    expect(await inviteWaiting({ db, email }, "hot")).toEqual([account.id]);
    expect(sent).toEqual([expect.objectContaining({ to: address, subject: expect.stringContaining("Hot") })]);
    expect(sent[0]!.text).toContain("72 hours");

    const other = await findOrCreateAccountByEmail(
      db,
      `waiting-${crypto.randomUUID().slice(0, 8)}@example.com`,
    );
    await db
      .sql()
      .query("INSERT INTO waiting_list (account_id, plan_id) VALUES ($1, 'hot')", [other.account.id]);
    const down: EmailSender = {
      configured: true,
      send: async () => {
        throw new Error("e-mail API down (injected)");
      },
    };
    expect(await inviteWaiting({ db, email: down }, "hot")).toEqual([other.account.id]);
    const holds = await db
      .sql()
      .query("SELECT kind FROM seat_holds WHERE account_id = $1", [other.account.id]);
    expect(holds).toEqual([{ kind: "invitation" }]);
  });
});
