import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sweepConsoleData } from "../../../../workers/accounts/retention-sweep";
import { createApp } from "../../../../workers/app";
import { SignInLimiter } from "../../../../workers/limits/sign-in-limits";
import { buildServices } from "../../../../workers/services";
import { getSql } from "../../../../workers/stores/db";
import { redisAccess } from "../../../../workers/stores/redis";
import {
  capture,
  consoleCall,
  consoleEnv,
  lastCode,
  newEmail,
  randomIp,
  sentEmails,
} from "../../../support/console";
import { expectError } from "../../../support/worker-http";

// Issue 45, item 1: a stranger must not be able to lock a chosen address out of e-mail sign-in.
const sendCode = (email: string, ip: string) =>
  consoleCall("POST", "/v1/console/auth/codes", { body: { email }, ip });
const createSession = (email: string, code: string, ip: string) =>
  consoleCall("POST", "/v1/console/sessions", { body: { email, code }, ip });
const wrongCode = (code: string) => String((Number(code) + 1) % 100_000_000).padStart(8, "0");
const randomIpv6 = (net48: string) => {
  const h = () => Math.floor(Math.random() * 0xffff).toString(16);
  return `${net48}:${h()}:${h()}:${h()}:${h()}:${h()}`;
};
const random48 = () => {
  const h = () => Math.floor(Math.random() * 0xffff).toString(16);
  return `2001:${h()}:${h()}`;
};

afterEach(() => vi.restoreAllMocks());

describe("issue 45 item 1: sign-in lock-out of a chosen address", () => {
  it("a new code does not invalidate the codes already sent: the owner's code works after a stranger asked 4 more", async () => {
    const email = newEmail("victim");
    const owner = randomIp();
    expect((await sendCode(email, owner)).status).toBe(202);
    const ownersCode = lastCode(email);
    const stranger = randomIp();
    for (let i = 0; i < 4; i++) expect((await sendCode(email, stranger)).status).toBe(202);
    await expectError(await sendCode(email, stranger), 429, "email_codes_per_hour");
    const later = lastCode(email);
    expect((await createSession(email, ownersCode, owner)).status).toBe(201);
    // Each of the hour's codes stays valid until it expires or is used, and is stored only as a keyed hash.
    expect((await createSession(email, later, owner)).status).toBe(201);
    const rows = (await getSql(env).query("SELECT code_hmac FROM sign_in_codes WHERE email = $1", [
      email,
    ])) as { code_hmac: string }[];
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.code_hmac).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a code's 5 wrong tries count per client network: a stranger's guesses cannot burn the owner's code", async () => {
    const email = newEmail("victim");
    const owner = randomIp();
    await sendCode(email, owner);
    const code = lastCode(email);
    const stranger = randomIp();
    for (let i = 1; i <= 5; i++)
      await expectError(await createSession(email, wrongCode(code), stranger), 401, "invalid_code");
    await expectError(await createSession(email, code, stranger), 401, "code_attempts_exceeded");
    expect((await createSession(email, code, owner)).status).toBe(201);
  });

  it("the scheduled sweep removes expired codes with their tries", async () => {
    const email = newEmail("sweep");
    const ip = randomIp();
    await sendCode(email, ip);
    await expectError(await createSession(email, "00000000", ip), 401, "invalid_code");
    const sql = getSql(env);
    await sql.query("UPDATE sign_in_codes SET expires_at = now() - interval '1 second' WHERE email = $1", [
      email,
    ]);
    await sweepConsoleData(consoleEnv);
    expect(await sql.query("SELECT 1 FROM sign_in_codes WHERE email = $1", [email])).toHaveLength(0);
    expect(await sql.query("SELECT 1 FROM sign_in_code_tries WHERE email = $1", [email])).toHaveLength(0);
  });

  it("wrong tries are limited per client network with backoff: 20 tries an hour, then 429 sign_in_tries_per_network with a doubling wait", async () => {
    const net = randomIp();
    for (let i = 0; i < 20; i++)
      await expectError(await createSession(newEmail("spray"), "12345678", net), 401, "invalid_code");
    const refused = await createSession(newEmail("spray"), "12345678", net);
    await expectError(refused, 429, "sign_in_tries_per_network");
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(3600);
    // Another network is not slowed.
    await expectError(await createSession(newEmail("spray"), "12345678", randomIp()), 401, "invalid_code");
  });

  it("the try limit counts an IPv6 /48 as one network", async () => {
    const net = random48();
    for (let i = 0; i < 20; i++)
      await expectError(
        await createSession(newEmail("v6"), "12345678", randomIpv6(net)),
        401,
        "invalid_code",
      );
    await expectError(
      await createSession(newEmail("v6"), "12345678", randomIpv6(net)),
      429,
      "sign_in_tries_per_network",
    );
  });

  it("the 30 codes an hour per network count an IPv6 /48 as one network (a /64 each does not escape it)", async () => {
    const net = random48();
    for (let i = 0; i < 30; i++) expect((await sendCode(newEmail("v6"), randomIpv6(net))).status).toBe(202);
    await expectError(await sendCode(newEmail("v6"), randomIpv6(net)), 429, "email_codes_per_hour");
  });

  it("a global hourly budget of sign-in e-mails: past it → 429 sign_in_emails_per_hour with retry-after, and an operator alert in the logs", async () => {
    const budget = { prefix: `svc:test:budget:${crypto.randomUUID()}`, limit: 3, windowSeconds: 3600 };
    const app = createApp((e) => ({
      ...buildServices(e),
      email: capture,
      signInLimits: new SignInLimiter(redisAccess(e), { emailBudget: budget }),
    }));
    const send = (email: string) =>
      app.request(
        "https://svc.test/v1/console/auth/codes",
        {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": randomIp() },
          body: JSON.stringify({ email }),
        },
        { ...consoleEnv },
      );
    for (let i = 0; i < 3; i++) expect((await send(newEmail("budget"))).status).toBe(202);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const over = newEmail("budget");
    const res = await send(over);
    await expectError(res, 429, "sign_in_emails_per_hour");
    const wait = Number(res.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(sentEmails.some((m) => m.to === over)).toBe(false);
    const lines = log.mock.calls.map((c) => c.join(" ")).join("\n");
    expect(lines).toMatch(
      /"event":"sign_in_email_budget_used_up","at":"[^"]+","alert":true,"limit_per_hour":3/,
    );
    expect(lines).not.toContain(over);
  });
});

describe("issue 50: sign-in abuse, part two", () => {
  it("item 4: 'a cap per code across all networks (the code dies; the owner asks for a new one)': 10 wrong tries from 10 networks, then even the right digits from an 11th network are refused", async () => {
    const email = newEmail("spread");
    await sendCode(email, randomIp());
    const code = lastCode(email);
    for (let i = 0; i < 10; i++)
      await expectError(await createSession(email, wrongCode(code), randomIp()), 401, "invalid_code");
    await expectError(await createSession(email, code, randomIp()), 401, "code_attempts_exceeded");
    // The owner asks for a new code, which has its own tries.
    await sendCode(email, randomIp());
    expect((await createSession(email, lastCode(email), randomIp())).status).toBe(201);
  });

  it("item 4: the cap holds for parallel tries: 30 networks at once get exactly 10 guesses at the code", async () => {
    const email = newEmail("burst");
    await sendCode(email, randomIp());
    const code = lastCode(email);
    const answers = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await createSession(email, wrongCode(code), randomIp());
        return ((await res.json()) as { error: { code: string } }).error.code;
      }),
    );
    expect(answers.filter((a) => a === "invalid_code")).toHaveLength(10);
    expect(answers.filter((a) => a === "code_attempts_exceeded")).toHaveLength(20);
    await expectError(await createSession(email, code, randomIp()), 401, "code_attempts_exceeded");
  });

  it("item 9: 'keep part of the budget for addresses that already have an account': strangers' addresses from many networks use up their part, an account's owner still gets a code", async () => {
    const budget = { prefix: `svc:test:budget:${crypto.randomUUID()}`, limit: 10, windowSeconds: 3600 };
    const app = createApp((e) => ({
      ...buildServices(e),
      email: capture,
      signInLimits: new SignInLimiter(redisAccess(e), { emailBudget: budget }),
    }));
    const send = (email: string) =>
      app.request(
        "https://svc.test/v1/console/auth/codes",
        {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": randomIp() },
          body: JSON.stringify({ email }),
        },
        { ...consoleEnv },
      );
    const owner = newEmail("owner");
    await getSql(env).query("INSERT INTO accounts (id, email) VALUES ($1, $2)", [
      `acc_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`,
      owner,
    ]);
    vi.spyOn(console, "error").mockImplementation(() => {});
    // The attacker: addresses without an account, one network each, until the service refuses.
    let accepted = 0;
    for (let i = 0; i < 10; i++) if ((await send(newEmail("flood"))).status === 202) accepted++;
    expect(accepted).toBe(7);
    await expectError(await send(newEmail("flood")), 429, "sign_in_emails_per_hour");
    // The reserve (30 %) is the account owners'.
    expect((await send(owner)).status).toBe(202);
    expect(sentEmails.some((m) => m.to === owner)).toBe(true);
  });
});
