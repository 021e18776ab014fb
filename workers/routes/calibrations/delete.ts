import { Calibration, CalibrationPathParams } from "../../../schema/calibrations";
import { guarded } from "../../calibrations/owners";
import { deleteCalibrationResponse } from "../../calibrations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** DELETE /v1/calibrations/{id}. */
export const deleteCalibration = endpoint(
  {
    method: "delete",
    path: "/v1/calibrations/{id}",
    operationId: "deleteCalibration",
    summary: "Stop applying a calibration (it stays readable; replays keep using it)",
    auth: { scope: "decide" },
    request: { params: CalibrationPathParams },
    responses: { 200: jsonResponse("The calibration, `active: false`.", Calibration) },
    errors: ["calibration_not_found"],
  },
  function deleteCalibrationHandler(c) {
    return guarded(() => deleteCalibrationResponse(c, c.var.apiKey.accountId));
  },
);
