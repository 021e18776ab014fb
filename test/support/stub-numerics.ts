import type { NumericsClass } from "../../gpu-worker/src/numerics";

/** The numerics class of a scorer stand-in in unit tests (computes nothing with ggml). */
export const STUB_NUMERICS: NumericsClass = {
  id: "stub",
  backend: "cpu",
  device: "stub",
  threads: 1,
  build: "stub",
};
