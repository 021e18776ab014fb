/** How the console words calibrations (no DOM here: the unit tier reads it too). */

/** How a method reads. */
export const METHOD_TEXT: Record<"temperature" | "temperature_bias", string> = {
  temperature: "temperature",
  temperature_bias: "temperature and bias",
};

/** What a refused fit means, said before the API's own sentence. */
export const CALIBRATION_LEADS: Readonly<Record<string, string>> = {
  too_few_labels: "Not enough labels to calibrate this question.",
  calibration_no_gain: "Calibrating would not make this question's answers better, so nothing was applied.",
  evaluation_outdated: "This run was scored before answers kept what a calibration needs.",
  evaluation_not_done: "This run has not finished yet.",
  calibration_limit_reached: "Your account has as many calibrations as it may have.",
};

/** `check: Does the customer ask…`: the type and the instructions cut to `max` characters. */
export function questionSummary(q: { type: string; instructions: string }, max = 80): string {
  const text = q.instructions.length > max ? `${q.instructions.slice(0, max - 1)}…` : q.instructions;
  return `${q.type}: ${text}`;
}
