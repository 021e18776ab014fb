/**
 * Gated phrasing maps (issue #13, third pass): the phrasing map's logits z (`phraseLogits`) with a gate
 * g = σ(intercept + coefficients · features) that moves the answer toward uniform where the features say the model
 * does not know (`gated`, the engine's own code). Fitted by NLL on train items only; the features are
 * standardised while fitting and the coefficients mapped back, so the artifact holds raw coefficients.
 */

import {
  type Gate,
  gated,
  gateFeatures,
  type PhraseMethod,
  phraseLogits,
  softmax,
} from "../../src/calibration";
import { descend } from "../descend";
import type { MethodSpec, Row } from "./phrasing-methods";

export type GateFeature = "state_spread" | "free_spread" | "margin" | "state_mean" | "free_mean";
export const GATE_FEATURES: GateFeature[] = [
  "state_spread",
  "free_spread",
  "margin",
  "state_mean",
  "free_mean",
];

export interface GateSpec {
  /** `bias`: a yes bias (check). */
  base: MethodSpec;
  /** No gate when undefined (the plain phrasing map). */
  mode?: Gate["mode"];
  features: GateFeature[];
  /** Check: the relevance R̄ on the yes logit, in nats (`sum`) or nats per prompt token. */
  relevance?: "sum" | "per_token";
}

export interface GateFit {
  method: PhraseMethod;
  gate?: Gate;
  relevance_weight?: number;
}

/** A feature row with, for check, R̄ in both units, and its weight in the fit (default 1). */
export type GateRow = Row & { rel?: { sum: number; per_token: number }; w?: number };

export function gateProbs(r: GateRow, fit: GateFit, spec: GateSpec): number[] {
  const z = phraseLogits(r.f, fit.method, spec.base.mode !== "raw");
  if (spec.relevance && fit.relevance_weight !== undefined)
    z[0] = (z[0] as number) + fit.relevance_weight * (r.rel?.[spec.relevance] as number);
  return fit.gate ? gated(r.f, z, fit.gate) : softmax(z);
}

const weight = (rs: GateRow[]) => rs.reduce((t, r) => t + (r.w ?? 1), 0);
const nllOf = (rs: GateRow[], fit: GateFit, spec: GateSpec) =>
  rs.reduce(
    (t, r) => t - (r.w ?? 1) * Math.log(Math.max(1e-12, gateProbs(r, fit, spec)[r.answer] as number)),
    0,
  ) / Math.max(1e-12, weight(rs));

/** Feature means and standard deviations on `rs` under the unfitted base map (scale 1, free weight −1). */
function featureStats(rs: Row[], spec: GateSpec) {
  const m0: PhraseMethod = { scale: 1, free_weight: -1, agreement_slope: 0, bias: [] };
  const xs = rs.map((r) => gateFeatures(r.f, phraseLogits(r.f, m0, spec.base.mode !== "raw")));
  return Object.fromEntries(
    GATE_FEATURES.map((k) => {
      const v = xs.map((x) => x[k]);
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length) || 1;
      return [k, { mean, sd }];
    }),
  ) as Record<GateFeature, { mean: number; sd: number }>;
}

/** Fits scale (+ free weight for `partial`) and the gate's intercept and coefficients by NLL on `train`. */
export function fitGate(train: GateRow[], spec: GateSpec): GateFit {
  const partial = spec.base.mode === "partial";
  const st = featureStats(train, spec);
  const nf = spec.features.length;
  const relSd = spec.relevance
    ? Math.sqrt(train.reduce((t, r) => t + (r.rel?.[spec.relevance as "sum"] ?? 0) ** 2, 0) / train.length) ||
      1
    : 1;
  const mk = (v: number[]): GateFit => {
    const method: PhraseMethod = {
      scale: v[0] as number,
      ...(partial && { free_weight: v[1] as number }),
      agreement_slope: 0,
      bias: spec.base.bias ? [v[3 + nf] as number, 0] : [],
    };
    const rel = spec.relevance ? { relevance_weight: (v[4 + nf] as number) / relSd } : {};
    if (!spec.mode) return { method, ...rel };
    const coef = (k: GateFeature) => {
      const j = spec.features.indexOf(k);
      return j < 0 ? 0 : (v[3 + j] as number) / st[k].sd;
    };
    const gate: Gate = {
      mode: spec.mode,
      intercept: (v[2] as number) - GATE_FEATURES.reduce((t, k) => t + coef(k) * st[k].mean, 0),
      state_spread: coef("state_spread"),
      free_spread: coef("free_spread"),
      margin: coef("margin"),
      state_mean: coef("state_mean"),
      free_mean: coef("free_mean"),
    };
    return { method, gate, ...rel };
  };
  const free = [
    true,
    partial,
    !!spec.mode,
    ...spec.features.map(() => true),
    spec.base.bias,
    !!spec.relevance,
  ];
  let v = [0.3, partial ? -0.1 : 0, 2, ...spec.features.map(() => 0), 0, 0];
  const grad = (p: number[]) =>
    p.map((_x, k) => {
      if (!free[k]) return 0;
      const h = 1e-4;
      const a = p.map((y, j) => (j === k ? y + h : y));
      const b = p.map((y, j) => (j === k ? y - h : y));
      return (nllOf(train, mk(a), spec) - nllOf(train, mk(b), spec)) / (2 * h);
    });
  v = descend(v, (p) => nllOf(train, mk(p), spec), grad, { iters: 600, minGrad2: 1e-10, minStep: 1e-8 });
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  const fit = mk(v);
  return {
    method: {
      scale: round(fit.method.scale),
      ...(fit.method.free_weight !== undefined && { free_weight: round(fit.method.free_weight) }),
      agreement_slope: 0,
      bias: fit.method.bias.map(round),
    },
    ...(fit.relevance_weight !== undefined && { relevance_weight: round(fit.relevance_weight) }),
    ...(fit.gate && {
      gate: {
        mode: fit.gate.mode,
        intercept: round(fit.gate.intercept),
        state_spread: round(fit.gate.state_spread),
        free_spread: round(fit.gate.free_spread),
        margin: round(fit.gate.margin),
        state_mean: round(fit.gate.state_mean ?? 0),
        free_mean: round(fit.gate.free_mean ?? 0),
      },
    }),
  };
}

/** k-fold cross-validated (weighted) NLL on `rows` (fold = index mod k): how a spec generalises within train. */
export function cvNll(rs: GateRow[], spec: GateSpec, k = 5): number {
  let total = 0;
  for (let f = 0; f < k; f++) {
    const fit = fitGate(
      rs.filter((_, i) => i % k !== f),
      spec,
    );
    const test = rs.filter((_, i) => i % k === f);
    total += nllOf(test, fit, spec) * weight(test);
  }
  return total / weight(rs);
}

export const trainNll = nllOf;
