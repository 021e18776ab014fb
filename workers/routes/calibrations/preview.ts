import { CalibrationPreview, CreateCalibrationWire } from "../../../schema/calibrations";
import { guarded, PREVIEW_ERRORS } from "../../calibrations/owners";
import { previewCalibrationResponse } from "../../calibrations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** POST /v1/calibration-previews. */
export const previewCalibration = endpoint(
  {
    method: "post",
    path: "/v1/calibration-previews",
    operationId: "previewCalibration",
    summary: "Fit and measure a calibration without storing or applying it",
    auth: { scope: "decide" },
    request: { body: { required: true, content: { "application/json": { schema: CreateCalibrationWire } } } },
    responses: {
      200: jsonResponse(
        "What the calibration would be: stored nowhere, applied to nothing.",
        CalibrationPreview,
      ),
    },
    errors: PREVIEW_ERRORS,
  },
  function previewCalibrationHandler(c) {
    return guarded(() => previewCalibrationResponse(c, c.var.apiKey.accountId));
  },
);
