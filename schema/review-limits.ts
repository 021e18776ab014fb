/** Ids, statuses and limits of the review routes (issue 51), without the schemas: what the decide path reads. */
const ULID = "[0-9A-HJKMNP-TV-Z]{26}";
export const REVIEW_RULE_ID_PATTERN = new RegExp(`^rrule_${ULID}$`);
export const REVIEW_ID_PATTERN = new RegExp(`^rev_${ULID}$`);
export const REVIEW_STATUSES = ["pending", "labelled", "skipped"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Review rules one account may have at once (409 `review_rule_limit_reached`). */
export const MAX_REVIEW_RULES = 100;
/** Items one rule keeps over its life; past it the rule keeps nothing more (`full: true`). */
export const MAX_KEPT_PER_RULE = 10_000;
/** The random share of the question's other decides kept when `when.sample_rate` is not given. */
export const DEFAULT_SAMPLE_RATE = 0.01;
/** Days a kept item lives (customer content), labelled or not. */
export const REVIEW_RETENTION_DAYS = 30;
/** Seconds a `next` claim keeps an item from the other reviewers. */
export const CLAIM_SECONDS = 120;
