import { Calibration, CalibrationPathParams } from "../../../schema/calibrations";
import { guarded } from "../../calibrations/owners";
import { getCalibrationResponse } from "../../calibrations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** GET /v1/calibrations/{id}. */
export const getCalibration = endpoint(
  {
    method: "get",
    path: "/v1/calibrations/{id}",
    operationId: "getCalibration",
    summary: "Get a calibration (a replaced or deleted one stays readable)",
    auth: { scope: "decide" },
    request: { params: CalibrationPathParams },
    responses: { 200: jsonResponse("The calibration.", Calibration) },
    errors: ["calibration_not_found"],
  },
  function getCalibrationHandler(c) {
    return guarded(() => getCalibrationResponse(c, c.var.apiKey.accountId));
  },
);
