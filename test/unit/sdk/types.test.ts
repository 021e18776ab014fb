import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type {
  Batch as SchemaBatch,
  BatchList as SchemaBatchList,
  BatchResultLine as SchemaBatchResultLine,
  DeletedBatch as SchemaDeletedBatch,
} from "../../../schema/batches";
import {
  type BATCH_EVENT_TYPES,
  type BATCH_STATUSES,
  FINISHED_BATCH_STATUSES as SCHEMA_FINISHED,
  WEBHOOK_SIGNATURE_HEADER as SCHEMA_HEADER,
  WEBHOOK_TOLERANCE_SECONDS as SCHEMA_TOLERANCE,
  type WEBHOOK_EVENT_TYPES,
} from "../../../schema/batches";
import type {
  Calibration as SchemaCalibration,
  CalibrationMetrics as SchemaCalibrationMetrics,
} from "../../../schema/calibrations";
import type { Answer as SchemaAnswer } from "../../../schema/decide";
import type { WebhookEvent as SchemaWebhookEvent } from "../../../schema/events";
import type { ModelLimits as SchemaModelLimits } from "../../../schema/models";
import type { PlanList as SchemaPlanList } from "../../../schema/plan-list";
import type { UsageReport as SchemaUsageReport } from "../../../schema/usage";
import {
  type Answer,
  type Batch,
  type BatchEventType,
  type BatchList,
  type BatchResultFailure,
  type BatchResultSuccess,
  type BatchStatus,
  type Calibration,
  type CalibrationMetrics,
  type CheckAnswer,
  type DecideRequest,
  type Decision,
  type DeletedBatch,
  FINISHED_BATCH_STATUSES,
  type ModelLimits,
  type PickAnswer,
  type PlanList,
  type UsageReport,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookEvent,
  type WebhookEventType,
} from "../../../sdk/src/index";
import { scriptedClient } from "../../support/sdk-fake-fetch";

// These tests are checked by `tsc` (npm run typecheck); at run time they only call a scripted client.
const reply = {
  json: {
    answers: {
      mood: {
        type: "pick",
        choice: "angry",
        probabilities: { calm: 0.2, angry: 0.8 },
        confidence: 1,
        abstained: false,
      },
      urgency: {
        type: "rate",
        rating: 1.2,
        levels: ["low", "medium", "high"],
        probabilities: [0.1, 0.6, 0.3],
        confidence: 0.5,
        abstained: false,
      },
      refund: { type: "check", probability: 0.97, confidence: 0.9, abstained: false },
    },
  },
};

describe("decide(): the answer types follow from the request (const type parameter)", () => {
  it("a pick's choice is the union of its labels, a rate's levels its levels, a check a probability", async () => {
    const { client } = scriptedClient([reply]);
    const d = await client.decide({
      state: { ticket: "The parcel arrived broken." },
      questions: {
        mood: { type: "pick", instructions: "Mood?", options: { calm: null, angry: "Shouting or threats" } },
        urgency: { type: "rate", instructions: "Urgency?", levels: ["low", "medium", "high"] },
        refund: { type: "check", instructions: "Asks for a refund?" },
      },
    });
    expectTypeOf(d.answers.mood.choice).toEqualTypeOf<"calm" | "angry">();
    expectTypeOf(d.answers.mood.probabilities).toEqualTypeOf<{ calm: number; angry: number }>();
    expectTypeOf(d.answers.urgency.levels).toEqualTypeOf<readonly ["low", "medium", "high"]>();
    expectTypeOf(d.answers.urgency.probabilities).toEqualTypeOf<readonly [number, number, number]>();
    expectTypeOf(d.answers.urgency.rating).toEqualTypeOf<number>();
    expectTypeOf(d.answers.refund).toEqualTypeOf<CheckAnswer>();
    expectTypeOf(d.answers.refund.probability).toEqualTypeOf<number>();
    // @ts-expect-error: "happy" is not one of the pick's labels
    if (d.answers.mood.choice === "happy") throw new Error("unreachable");
    // @ts-expect-error: a check has no choice
    d.answers.refund.choice;
    // @ts-expect-error: no question "other" was asked
    d.answers.other;
  });

  it("numeric-looking labels stay string literals; a request built elsewhere gives the general types", async () => {
    const { client } = scriptedClient([reply, reply]);
    const d = await client.decide({
      state: "text",
      questions: { n: { type: "pick", instructions: "How many?", options: { "1": null, "10": null } } },
    });
    expectTypeOf(d.answers.n).toEqualTypeOf<PickAnswer<"1" | "10">>();
    const loose: DecideRequest = { state: "x", questions: {} };
    const general = await client.decide(loose);
    expectTypeOf(general).toEqualTypeOf<Decision>();
    expectTypeOf(general.answers[""]).toEqualTypeOf<Answer | undefined>();
  });
});

describe("the read routes' types are the API's wire schemas (the package carries its own copy)", () => {
  it("ModelLimits, PlanList and UsageReport equal schema/'s", () => {
    expectTypeOf<ModelLimits>().toEqualTypeOf<SchemaModelLimits>();
    expectTypeOf<UsageReport>().toEqualTypeOf<SchemaUsageReport>();
    // zod's catchall gives an intersection where the SDK writes one object type: the same values either way.
    expectTypeOf<PlanList>().toExtend<SchemaPlanList>();
    expectTypeOf<SchemaPlanList>().toExtend<PlanList>();
  });
});

describe("the batch and webhook types are the API's wire schemas (schema/batches.ts)", () => {
  it("Batch, BatchList and DeletedBatch equal schema/'s; WebhookEvent is schema/events.ts's union", () => {
    expectTypeOf<Batch>().toEqualTypeOf<z.infer<typeof SchemaBatch>>();
    expectTypeOf<BatchList>().toEqualTypeOf<z.infer<typeof SchemaBatchList>>();
    expectTypeOf<DeletedBatch>().toEqualTypeOf<z.infer<typeof SchemaDeletedBatch>>();
    // A union of three envelopes, compared variant by variant (a calibration's question as the Calibration
    // test below compares it).
    type Schema = z.infer<typeof SchemaWebhookEvent>;
    type Of<E, T> = E extends { type: infer K } ? (T extends K ? E : never) : never;
    expectTypeOf<Of<WebhookEvent, "batch.completed">>().toEqualTypeOf<Of<Schema, "batch.completed">>();
    expectTypeOf<Of<WebhookEvent, "question.drifted">>().toEqualTypeOf<Of<Schema, "question.drifted">>();
    type Calib<E> =
      Of<E, "calibration.ready"> extends { data: { object: infer C } }
        ? Omit<Of<E, "calibration.ready">, "data"> & { data: { object: Omit<C, "question"> } }
        : never;
    expectTypeOf<Calib<WebhookEvent>>().toEqualTypeOf<Calib<Schema>>();
    expectTypeOf<BatchStatus>().toEqualTypeOf<(typeof BATCH_STATUSES)[number]>();
    expectTypeOf<BatchEventType>().toEqualTypeOf<(typeof BATCH_EVENT_TYPES)[number]>();
    expectTypeOf<WebhookEventType>().toEqualTypeOf<(typeof WEBHOOK_EVENT_TYPES)[number]>();
  });

  it("a result line is one of schema/'s two shapes; the answered one carries the SDK's Decision", () => {
    type Schema = z.infer<typeof SchemaBatchResultLine>;
    type SchemaSuccess = Extract<Schema, { status: 200 }>;
    type SchemaFailure = Exclude<Schema, SchemaSuccess>;
    expectTypeOf<Omit<BatchResultSuccess, "body">>().toEqualTypeOf<Omit<SchemaSuccess, "body">>();
    expectTypeOf<BatchResultSuccess["body"]>().toEqualTypeOf<Decision>();
    expectTypeOf<Omit<Decision, "answers">>().toEqualTypeOf<Omit<SchemaSuccess["body"], "answers">>();
    // zod's passthrough gives an intersection where the SDK writes one object type: the same values either way.
    expectTypeOf<BatchResultFailure>().toExtend<SchemaFailure>();
    expectTypeOf<SchemaFailure>().toExtend<BatchResultFailure>();
  });

  it("the constants are schema/'s", () => {
    expect([...FINISHED_BATCH_STATUSES]).toEqual([...SCHEMA_FINISHED]);
    expect([WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TOLERANCE_SECONDS]).toEqual([SCHEMA_HEADER, SCHEMA_TOLERANCE]);
  });
});

describe("the calibration types are the API's wire schemas", () => {
  it("CalibrationMetrics equals schema/'s; a Calibration's fields are its own, the question the SDK's Question", () => {
    expectTypeOf<CalibrationMetrics>().toEqualTypeOf<z.infer<typeof SchemaCalibrationMetrics>>();
    expectTypeOf<Omit<Calibration, "question">>().toEqualTypeOf<
      Omit<z.infer<typeof SchemaCalibration>, "question">
    >();
    expectTypeOf<NonNullable<Calibration["question"]>["type"]>().toEqualTypeOf<
      NonNullable<z.infer<typeof SchemaCalibration>["question"]>["type"]
    >();
  });

  it("an answer's optional `calibration` is the API's", () => {
    expectTypeOf<Answer["calibration"]>().toEqualTypeOf<SchemaAnswer["calibration"]>();
  });
});
