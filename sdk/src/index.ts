export type * from "./batch-types.js";
export { FINISHED_BATCH_STATUSES } from "./batch-types.js";
export { Batches, type BatchResultsOptions, type CreateBatchOptions } from "./batches.js";
export type * from "./calibration-types.js";
export { type ClientOptions, type DecideOptions, SvcClient } from "./client.js";
export type {
  Answer,
  AnswerFor,
  CheckAnswer,
  CheckQuestion,
  DecideRequest,
  Decision,
  DecisionUsage,
  Json,
  PickAnswer,
  PickQuestion,
  Question,
  Questions,
  RateAnswer,
  RateQuestion,
  State,
} from "./decide-types.js";
export {
  type ClientErrorType,
  ERROR_TYPE_STATUS,
  type ErrorCode,
  type ErrorType,
  isKnownCode,
  isSvcError,
  KNOWN_CODES,
  type KnownErrorCode,
  SvcError,
  type SvcErrorFields,
  typeOfStatus,
} from "./errors.js";
export type * from "./evaluation-types.js";
export { limitErrors, limitsFor } from "./limits.js";
export {
  CONSOLE_PATH_PREFIX,
  NAMESPACED_METHODS,
  OPERATIONS,
  type Operation,
  type OperationName,
} from "./operations.js";
export type * from "./resource-types.js";
export {
  DEFAULT_RETRY,
  inProgressDelay,
  isInProgress,
  isRetryable,
  type RetryOptions,
  retryDelay,
} from "./retry.js";
export type * from "./review-types.js";
export { Reviews } from "./reviews.js";
export { attemptTimeoutMs, DEFAULT_TIMEOUTS, type TimeoutOptions } from "./timeouts.js";
export type {
  ApiResponse,
  Call,
  RequestOptions,
  ResponseMeta,
  StreamedBody,
  TransportOptions,
  Upload,
} from "./transport.js";
export {
  signWebhook,
  type VerifyOptions,
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookPayload,
  type WebhookVerificationCode,
  WebhookVerificationError,
  webhooks,
} from "./webhooks.js";
