import { dayOf } from "../../schema/periods";
import { limitKeys } from "./rate-limit-keys";
import type { RedisAccess } from "./redis";

// The account's test-quota day counter (the same key decide's limiter takes from, so test keys, the playground
// and evaluations share one daily quota): taken only if the whole item fits; nothing else is touched, so an
// evaluation is paced by its runner, never by a key's rpm / tpm.
const TAKE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local tokens = tonumber(ARGV[1])
if used + tokens > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], tokens)
redis.call('EXPIRE', KEYS[1], 90000)
return 1`;

const GIVE_BACK = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local back = math.min(used, tonumber(ARGV[1]))
if back > 0 then redis.call('DECRBY', KEYS[1], back) end
return back`;

/** A taken share of the quota: the day it was taken on, so a give-back after midnight returns it there. */
export interface QuotaTaken {
  day: string;
  tokens: number;
}

/** The daily test quota as evaluations take it (Redis unreachable: `StoreUnavailableError`). */
export class EvaluationQuota {
  constructor(
    private readonly redis: RedisAccess,
    private readonly dailyQuota: number,
  ) {}

  private key(accountId: string, day: string): string {
    return limitKeys({ keyId: "", accountId, mode: "test", day })[5]!;
  }

  /** Takes `tokens` from the account's quota of the UTC day of `now`; null when they do not fit. */
  async take(accountId: string, tokens: number, now: number = Date.now()): Promise<QuotaTaken | null> {
    const day = dayOf(now);
    const ok = await this.redis.run(
      (r) => r.eval(TAKE, [this.key(accountId, day)], [tokens, this.dailyQuota]) as Promise<number>,
    );
    return Number(ok) === 1 ? { day, tokens } : null;
  }

  async giveBack(accountId: string, taken: QuotaTaken): Promise<void> {
    await this.redis.run((r) => r.eval(GIVE_BACK, [this.key(accountId, taken.day)], [taken.tokens]));
  }
}
