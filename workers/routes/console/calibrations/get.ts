import { Calibration, CalibrationPathParams } from "../../../../schema/calibrations";
import { guarded } from "../../../calibrations/owners";
import { getCalibrationResponse } from "../../../calibrations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** GET /v1/console/calibrations/{id} (console twin of `getCalibration`). */
export const getConsoleCalibration = endpoint(
  {
    method: "get",
    path: "/v1/console/calibrations/{id}",
    operationId: "getConsoleCalibration",
    summary: "Get a calibration (a replaced or deleted one stays readable)",
    auth: "session",
    request: { params: CalibrationPathParams },
    responses: { 200: jsonResponse("The calibration.", Calibration) },
    errors: ["calibration_not_found"],
  },
  function getConsoleCalibrationHandler(c) {
    return guarded(() => getCalibrationResponse(c, c.var.session.accountId));
  },
);
