import { shapeAnswer } from "../../schema/answers";
import type { ScoreRequest } from "../../schema/engine-protocol";

/** What a GPU stand-in answers: every question uniform over its options, levels or yes/no. */
export function uniformScore(req: ScoreRequest) {
  const answers = req.questions.map((q) => {
    const k = q.type === "pick" ? q.options.length : q.type === "rate" ? q.levels.length : 2;
    return {
      id: q.id,
      answer: shapeAnswer(
        q,
        Array.from({ length: k }, () => 1 / k),
      ),
    };
  });
  return {
    served_by: "gpu" as const,
    result: { model: req.model, calibration: "cal-20261121-3", answers },
  };
}
