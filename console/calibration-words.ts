/** How the console words calibrations (no DOM here: the unit tier reads it too). */

/** How a method reads. */
export const METHOD_TEXT: Record<"temperature" | "temperature_bias" | "state_words", string> = {
  temperature: "temperature",
  temperature_bias: "temperature and bias",
  state_words: "the state's words with the version's answer",
};

/**
 * Why the fit chose what it chose, in words (workers/calibrations/cross-validate.ts `chooseFit`): the lowest
 * cross-validated NLL among the maps, and the state's words only when they beat the better of that map and the
 * version's own answers by more than one paired standard error.
 */
export function methodReason(
  method: keyof typeof METHOD_TEXT,
  triedWords: boolean,
  workBound?: { work: number; bound: number },
): string {
  const rule = triedWords
    ? "Reading the state wins only when its held-out NLL beats the better of the best map and the version's own answers by more than one paired standard error."
    : workBound
      ? `The state's words were not tried: these labels' states hold ${workBound.work.toLocaleString("en")} word buckets × weight rows, above the fit's bound of ${workBound.bound.toLocaleString("en")} (fewer or shorter labelled items, or fewer options, fit under it).`
      : "The state's words were not tried: some labelled items were scored before answers kept their state's words.";
  if (method === "state_words")
    return `Chosen: the state's words, read with the version's answer, had the lowest held-out NLL by a clear margin. ${rule}`;
  return `Chosen: ${METHOD_TEXT[method]}, the map with the lowest held-out NLL (ties go to the simpler). ${rule}`;
}

/**
 * The Calibrations list's Status cell (issue 49): `active`; `fitting…` on the account's runner; `failed: <lead or
 * code>` (the error a synchronous create would have answered); `inactive since <when>` (`since` is `when()`'s).
 */
export function statusText(
  c: { status: "fitting" | "active" | "inactive" | "failed"; error: { code: string } | null },
  since: string,
): string {
  if (c.status === "active") return "active";
  if (c.status === "fitting") return "fitting…";
  if (c.status === "failed") {
    const code = c.error?.code ?? "internal_error";
    return `failed: ${CALIBRATION_LEADS[code] ?? code}`;
  }
  return `inactive since ${since}`;
}

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
