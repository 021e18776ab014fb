import { type FormValue, str, stringMap } from "./form";
import { addMonths, type FakePrice, type FakeSubscription, stripeId } from "./objects";

/** A phase as Stripe answers it (the fields the SDK types and our Worker read). */
export interface FakePhase {
  start_date: number;
  end_date: number;
  currency: string;
  items: { price: string; quantity: number; metadata: Record<string, string> }[];
  metadata: Record<string, string>;
  proration_behavior: string;
}

/** A Subscription Schedule as Stripe answers it. */
export interface FakeSchedule {
  id: string;
  object: "subscription_schedule";
  status: "not_started" | "active" | "completed" | "released" | "canceled";
  subscription: string | null;
  customer: string;
  created: number;
  current_phase: { start_date: number; end_date: number } | null;
  end_behavior: string;
  phases: FakePhase[];
  metadata: Record<string, string>;
  released_at: number | null;
  released_subscription: string | null;
  canceled_at: number | null;
  completed_at: number | null;
  livemode: false;
  test_clock: null;
}

/** What the schedule operations share with the fake: its objects, its clock, and its event sender. */
export interface ScheduleWorld {
  subscriptions: Map<string, FakeSubscription>;
  schedules: Map<string, FakeSchedule>;
  prices: Map<string, FakePrice>;
  products: Map<string, { id: string; object: "product"; name: string; metadata: Record<string, string> }>;
  now(): number;
  emit(type: string, object: unknown): void;
}

/** A request Stripe refuses (400 `invalid_request_error`, `resource_missing` → 404). */
export class StripeRequestError extends Error {
  constructor(
    message: string,
    readonly param?: string,
    readonly code?: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const item = (sub: FakeSubscription) => sub.items.data[0]!;

/** POST /v1/subscription_schedules with `from_subscription`: one phase, the subscription's current period. */
export function createFromSubscription(w: ScheduleWorld, params: Record<string, FormValue>): FakeSchedule {
  const subId = str(params, "from_subscription");
  if (!subId)
    throw new StripeRequestError("Only `from_subscription` is supported here.", "from_subscription");
  const sub = w.subscriptions.get(subId);
  if (!sub)
    throw new StripeRequestError(`No such subscription: '${subId}'`, "from_subscription", "resource_missing");
  if (sub.schedule)
    throw new StripeRequestError(
      `You cannot migrate a subscription that is already attached to a schedule: \`${sub.schedule}\`.`,
      "from_subscription",
    );
  if (sub.status === "canceled")
    throw new StripeRequestError("You cannot migrate a canceled subscription.", "from_subscription");
  const it = item(sub);
  const phase: FakePhase = {
    start_date: it.current_period_start,
    end_date: it.current_period_end,
    currency: sub.currency,
    items: [{ price: it.price.id, quantity: it.quantity, metadata: {} }],
    metadata: {},
    proration_behavior: "create_prorations",
  };
  w.prices.set(it.price.id, it.price);
  const schedule: FakeSchedule = {
    id: stripeId("sub_sched"),
    object: "subscription_schedule",
    status: "active",
    subscription: sub.id,
    customer: sub.customer,
    created: w.now(),
    current_phase: { start_date: phase.start_date, end_date: phase.end_date },
    end_behavior: "release",
    phases: [phase],
    metadata: {},
    released_at: null,
    released_subscription: null,
    canceled_at: null,
    completed_at: null,
    livemode: false,
    test_clock: null,
  };
  w.schedules.set(schedule.id, schedule);
  sub.schedule = schedule.id;
  w.emit("subscription_schedule.created", schedule);
  w.emit("customer.subscription.updated", sub);
  return schedule;
}

/** A phase item's price: an existing `price`, or `price_data` (its `product` must exist) made into one. */
function phasePrice(w: ScheduleWorld, it: FormValue | undefined, at: string): FakePrice {
  const id = str(it, "price");
  if (id) {
    const p = w.prices.get(id);
    if (!p) throw new StripeRequestError(`No such price: '${id}'`, `${at}[price]`, "resource_missing");
    return p;
  }
  const product = str(it, "price_data", "product");
  if (!product || !w.products.has(product))
    throw new StripeRequestError(
      `No such product: '${product}'`,
      `${at}[price_data][product]`,
      "resource_missing",
    );
  const unit = Number(str(it, "price_data", "unit_amount"));
  const interval = str(it, "price_data", "recurring", "interval");
  if (!Number.isInteger(unit) || unit < 0 || !interval)
    throw new StripeRequestError("Invalid price_data.", `${at}[price_data]`);
  const price: FakePrice = {
    id: stripeId("price"),
    object: "price",
    active: false,
    currency: str(it, "price_data", "currency") ?? "eur",
    product,
    recurring: { interval, interval_count: 1 },
    tax_behavior: str(it, "price_data", "tax_behavior") ?? "unspecified",
    type: "recurring",
    unit_amount: unit,
  };
  w.prices.set(price.id, price);
  return price;
}

/** POST /v1/subscription_schedules/:id: new phases (the current one may not move), end behaviour, metadata. */
export function updateSchedule(
  w: ScheduleWorld,
  schedule: FakeSchedule,
  params: Record<string, FormValue>,
): FakeSchedule {
  if (schedule.status !== "active" && schedule.status !== "not_started")
    throw new StripeRequestError(
      `You cannot update a subscription schedule that is currently in the \`${schedule.status}\` status.`,
    );
  const given = params.phases as FormValue[] | undefined;
  if (given !== undefined) {
    if (!Array.isArray(given) || given.length === 0)
      throw new StripeRequestError("Invalid phases.", "phases");
    const phases: FakePhase[] = [];
    let start = schedule.current_phase?.start_date ?? w.now();
    given.forEach((p, i) => {
      const at = `phases[${i}]`;
      const startDate = str(p, "start_date");
      if (i === 0 && startDate !== undefined && Number(startDate) !== schedule.phases[0]!.start_date)
        throw new StripeRequestError(
          "You can not modify the start date of the current phase.",
          `${at}[start_date]`,
        );
      const end = str(p, "end_date");
      const months =
        str(p, "duration", "interval") === "month" ? Number(str(p, "duration", "interval_count") ?? 1) : 0;
      const endDate = end !== undefined ? Number(end) : months > 0 ? addMonths(start, months) : NaN;
      if (!Number.isInteger(endDate) || endDate <= start)
        throw new StripeRequestError("Each phase needs an end_date or a duration after its start.", at);
      const items = ((p as Record<string, FormValue>).items as FormValue[] | undefined) ?? [];
      if (items.length === 0) throw new StripeRequestError("Missing required param: items.", `${at}[items]`);
      phases.push({
        start_date: start,
        end_date: endDate,
        currency: phasePrice(w, items[0], `${at}[items][0]`).currency,
        items: items.map((it, j) => ({
          price: phasePrice(w, it, `${at}[items][${j}]`).id,
          quantity: Number(str(it, "quantity") ?? 1),
          metadata: {},
        })),
        metadata: stringMap((p as Record<string, FormValue>).metadata),
        proration_behavior: str(p, "proration_behavior") ?? "create_prorations",
      });
      start = endDate;
    });
    schedule.phases = phases;
  }
  const endBehavior = str(params, "end_behavior");
  if (endBehavior) schedule.end_behavior = endBehavior;
  Object.assign(schedule.metadata, stringMap(params.metadata));
  w.emit("subscription_schedule.updated", schedule);
  return schedule;
}

/** POST /v1/subscription_schedules/:id/release: the subscription carries on as it is, unscheduled. */
export function releaseSchedule(w: ScheduleWorld, schedule: FakeSchedule): FakeSchedule {
  if (schedule.status !== "active" && schedule.status !== "not_started")
    throw new StripeRequestError(
      `You cannot release a subscription schedule that is currently in the \`${schedule.status}\` status.`,
    );
  const sub = schedule.subscription ? w.subscriptions.get(schedule.subscription) : undefined;
  schedule.status = "released";
  schedule.released_at = w.now();
  schedule.released_subscription = schedule.subscription;
  schedule.subscription = null;
  schedule.current_phase = null;
  w.emit("subscription_schedule.released", schedule);
  if (sub) {
    sub.schedule = null;
    w.emit("customer.subscription.updated", sub);
  }
  return schedule;
}

/** A subscription being cancelled takes its schedule with it (`subscription_schedule.canceled`). */
export function cancelAttachedSchedule(w: ScheduleWorld, sub: FakeSubscription): void {
  const attached = sub.schedule ? w.schedules.get(sub.schedule) : undefined;
  if (!attached) return;
  attached.status = "canceled";
  attached.canceled_at = w.now();
  attached.current_phase = null;
  sub.schedule = null;
  w.emit("subscription_schedule.canceled", attached);
}

/** A phase taking over the subscription: its price on the item, its metadata on the subscription. */
function enterPhase(w: ScheduleWorld, sub: FakeSubscription, phase: FakePhase): void {
  const price = w.prices.get(phase.items[0]!.price)!;
  const it = item(sub);
  it.price = price;
  it.quantity = phase.items[0]!.quantity;
  Object.assign(sub.metadata, phase.metadata);
}

/**
 * The fake's clock moved to `w.now()`: every live subscription renews each period that ended; at a period
 * boundary where its schedule starts a new phase, the phase takes over (`customer.subscription.updated`,
 * `subscription_schedule.updated`); when the last phase ends the schedule is released (end_behavior
 * `release`) or the subscription canceled (`cancel`).
 */
export function advanceSubscriptions(w: ScheduleWorld): void {
  const now = w.now();
  for (const sub of w.subscriptions.values()) {
    if (!["active", "past_due", "trialing"].includes(sub.status)) continue;
    const it = item(sub);
    while (it.current_period_end <= now && sub.status !== "canceled") {
      it.current_period_start = it.current_period_end;
      it.current_period_end = addMonths(it.current_period_start);
      const schedule = sub.schedule ? w.schedules.get(sub.schedule) : undefined;
      const phase = schedule?.phases.find((p) => p.start_date === it.current_period_start);
      const last = schedule?.phases[schedule.phases.length - 1];
      if (schedule && phase) {
        enterPhase(w, sub, phase);
        schedule.current_phase = { start_date: phase.start_date, end_date: phase.end_date };
        w.emit("customer.subscription.updated", sub);
        w.emit("subscription_schedule.updated", schedule);
      } else if (schedule && last && last.end_date <= it.current_period_start) {
        if (schedule.end_behavior === "cancel") {
          sub.status = "canceled";
          schedule.status = "completed";
          schedule.completed_at = now;
          w.emit("subscription_schedule.completed", schedule);
          w.emit("customer.subscription.deleted", sub);
        } else releaseSchedule(w, schedule);
      } else w.emit("customer.subscription.updated", sub);
    }
  }
}

/** POST /v1/products: a product with the caller's id (Stripe allows one), refused when it exists. */
export function createProduct(w: ScheduleWorld, params: Record<string, FormValue>) {
  const id = typeof params.id === "string" ? params.id : stripeId("prod");
  if (w.products.has(id))
    throw new StripeRequestError("Product already exists.", "id", "resource_already_exists");
  const product = {
    id,
    object: "product" as const,
    name: String(params.name ?? ""),
    metadata: stringMap(params.metadata),
  };
  w.products.set(id, product);
  return product;
}
