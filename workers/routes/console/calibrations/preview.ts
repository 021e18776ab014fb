import { CalibrationPreview, CreateCalibrationWire } from "../../../../schema/calibrations";
import { guarded, PREVIEW_ERRORS } from "../../../calibrations/owners";
import { previewCalibrationResponse } from "../../../calibrations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** POST /v1/console/calibration-previews (console twin of `previewCalibration`). */
export const previewConsoleCalibration = endpoint(
  {
    method: "post",
    path: "/v1/console/calibration-previews",
    operationId: "previewConsoleCalibration",
    summary: "Fit and measure a calibration without storing or applying it",
    auth: "session+csrf",
    request: { body: { required: true, content: { "application/json": { schema: CreateCalibrationWire } } } },
    responses: {
      200: jsonResponse(
        "What the calibration would be: stored nowhere, applied to nothing.",
        CalibrationPreview,
      ),
    },
    errors: PREVIEW_ERRORS,
  },
  function previewConsoleCalibrationHandler(c) {
    return guarded(() => previewCalibrationResponse(c, c.var.session.accountId));
  },
);
