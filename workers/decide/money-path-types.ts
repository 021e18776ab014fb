import type { TokenCounts } from "../../schema/decide";
import type { ScoreRequest } from "../../schema/engine-protocol";
import type { JsonValue } from "../../schema/json";
import type { GpuTrace } from "../clients/gpu-pool";
import type { Services } from "../context/services";
import type { RateLimitState } from "../limits/key-limits";
import type { KeyRecord } from "../stores/keys";
import type { AnswerCalibrations } from "./calibration";
import type { DecisionParts } from "./decision";
import type { ResolvedModel } from "./resolve-model";

// The money path's shared types: money-path.ts runs it, replay.ts serves its replays.

/** What the decide route hands to steps 7–10 after validation, rendering and token limits. */
export interface MoneyPathInput {
  /** Parsed body (for the idempotency fingerprint). */
  body: JsonValue;
  idempotencyKey: string | undefined;
  resolved: ResolvedModel;
  /** Rendered for the engine, `model` = the exact GPU version. */
  engineRequest: ScoreRequest;
  tokens: TokenCounts;
  /** The account's calibrations that answer some of the questions (issue 44); empty for most accounts. */
  calibrations: AnswerCalibrations;
}

/** The services and the caller the money path works with; `onRateLimit` receives the real counts. */
export interface MoneyPathDeps
  extends Pick<Services, "admission" | "ledger" | "refundIntents" | "engine" | "calibrations"> {
  key: KeyRecord;
  requestId: string;
  onRateLimit(state: RateLimitState): void;
  /** The client's connection (workerd's request.signal): aborted when it goes away, which cancels dispatch. */
  clientSignal?: AbortSignal;
  /** Filled with the GPU attempts and their time, for the request line. */
  gpuTrace?: GpuTrace;
}

/** A served call: the Decision's parts, and whether it replays a completed original. */
export interface MoneyPathOutcome {
  decision: DecisionParts;
  replayed: boolean;
}
