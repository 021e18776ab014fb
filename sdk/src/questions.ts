import { OPERATIONS, type Operation, type OperationName } from "./operations.js";
import type {
  Question,
  QuestionDrift,
  QuestionList,
  QuestionSeries,
  QuestionSeriesQuery,
  UpdateQuestionDriftRequest,
} from "./question-types.js";
import type { Call, RequestOptions, Transport } from "./transport.js";

/**
 * The question routes (issue 52), as `client.questions`: the account's questions as written, each one's answers
 * over time, and its drift against a reference week (compared within one exact version).
 */
export class AccountQuestions {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/questions: the key's mode's questions, by id (`limit` 1–100, `starting_after` a question id). */
  async list(
    query: { limit?: number; starting_after?: string } = {},
    options?: RequestOptions,
  ): Promise<QuestionList> {
    const q = { limit: query.limit?.toString(), starting_after: query.starting_after };
    return (await this.transport.send<QuestionList>({ ...this.call("listQuestions"), query: q }, options))
      .data;
  }

  /** GET /v1/questions/{id}. */
  async retrieve(id: string, options?: RequestOptions): Promise<Question> {
    return (await this.transport.send<Question>(this.call("getQuestion", id), options)).data;
  }

  /** GET /v1/questions/{id}/series: count, mix, mean confidence, abstain rate per UTC day or hour. */
  async series(id: string, query: QuestionSeriesQuery, options?: RequestOptions): Promise<QuestionSeries> {
    const q = { start: query.start, end: query.end, granularity: query.granularity };
    return (
      await this.transport.send<QuestionSeries>({ ...this.call("getQuestionSeries", id), query: q }, options)
    ).data;
  }

  /** GET /v1/questions/{id}/drift: the last 7 days against the reference week, within one version. */
  async drift(id: string, options?: RequestOptions): Promise<QuestionDrift> {
    return (await this.transport.send<QuestionDrift>(this.call("getQuestionDrift", id), options)).data;
  }

  /** POST /v1/questions/{id}/drift: `{threshold}` and/or `{reset_reference: true}`. */
  async updateDrift(
    id: string,
    request: UpdateQuestionDriftRequest,
    options?: RequestOptions,
  ): Promise<QuestionDrift> {
    const call = { ...this.call("updateQuestionDrift", id), body: request };
    return (await this.transport.send<QuestionDrift>(call, options)).data;
  }

  private call(name: OperationName, id?: string): Call {
    const { method, path, auth, idempotent }: Operation = OPERATIONS[name];
    const resolved = id === undefined ? path : path.replace("{id}", encodeURIComponent(id));
    return { method, path: resolved, auth, idempotent };
  }
}
