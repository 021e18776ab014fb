import { Calibration, CreateCalibrationWire } from "../../../../schema/calibrations";
import { CREATE_ERRORS, guarded } from "../../../calibrations/owners";
import { createCalibrationResponse } from "../../../calibrations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** POST /v1/console/calibrations (console twin of `createCalibration`). */
export const createConsoleCalibration = endpoint(
  {
    method: "post",
    path: "/v1/console/calibrations",
    operationId: "createConsoleCalibration",
    summary: "Fit a calibration of one question on a done evaluation's labels, and apply it",
    auth: "session+csrf",
    request: { body: { required: true, content: { "application/json": { schema: CreateCalibrationWire } } } },
    responses: { 201: jsonResponse("The calibration, active.", Calibration) },
    errors: CREATE_ERRORS,
  },
  function createConsoleCalibrationHandler(c) {
    return guarded(() => createCalibrationResponse(c, c.var.session.accountId));
  },
);
