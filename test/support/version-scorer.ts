import { scorerGroups } from "../../gpu-worker/src/model-files";
import { openScorer, type Scorer } from "../../gpu-worker/src/scorer";

/**
 * A scorer of the weights file an exact version evaluates, opened as the worker opens it (its file, layout and
 * read rule), at one thread and one sequence: the setting every recorded answer was taken in.
 */
export function openVersionScorer(
  version: string,
  opts: { contextSize: number; reusePrefixes?: boolean },
): Promise<Scorer> {
  const [group] = scorerGroups([version]);
  if (!group) throw new Error(`${version}: no weights file`);
  return openScorer({
    modelPath: group.path,
    threads: 1,
    sequences: 1,
    contextSize: opts.contextSize,
    layout: group.gpu.layout,
    reads: group.gpu.reads,
    reusePrefixes: opts.reusePrefixes,
  });
}
