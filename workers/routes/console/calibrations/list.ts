import { CalibrationList, CalibrationListQuery } from "../../../../schema/calibrations";
import { guarded, LIST_ERRORS } from "../../../calibrations/owners";
import { listCalibrationsResponse } from "../../../calibrations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** GET /v1/console/calibrations (console twin of `listCalibrations`). */
export const listConsoleCalibrations = endpoint(
  {
    method: "get",
    path: "/v1/console/calibrations",
    operationId: "listConsoleCalibrations",
    summary: "List the account's calibrations, newest first (active or not)",
    auth: "session",
    request: { query: CalibrationListQuery },
    responses: { 200: jsonResponse("A page of calibrations.", CalibrationList) },
    errors: LIST_ERRORS,
  },
  function listConsoleCalibrationsHandler(c) {
    return guarded(() => listCalibrationsResponse(c, c.var.session.accountId));
  },
);
