import { Calibration, CalibrationPathParams } from "../../../../schema/calibrations";
import { guarded } from "../../../calibrations/owners";
import { deleteCalibrationResponse } from "../../../calibrations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** DELETE /v1/console/calibrations/{id} (console twin of `deleteCalibration`). */
export const deleteConsoleCalibration = endpoint(
  {
    method: "delete",
    path: "/v1/console/calibrations/{id}",
    operationId: "deleteConsoleCalibration",
    summary: "Stop applying a calibration (it stays readable; replays keep using it)",
    auth: "session+csrf",
    request: { params: CalibrationPathParams },
    responses: { 200: jsonResponse("The calibration, `active: false`.", Calibration) },
    errors: ["calibration_not_found"],
  },
  function deleteConsoleCalibrationHandler(c) {
    return guarded(() => deleteCalibrationResponse(c, c.var.session.accountId));
  },
);
