import { CalibrationList, CalibrationListQuery } from "../../../schema/calibrations";
import { guarded, LIST_ERRORS } from "../../calibrations/owners";
import { listCalibrationsResponse } from "../../calibrations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** GET /v1/calibrations. */
export const listCalibrations = endpoint(
  {
    method: "get",
    path: "/v1/calibrations",
    operationId: "listCalibrations",
    summary: "List the account's calibrations, newest first (active or not)",
    auth: { scope: "decide" },
    request: { query: CalibrationListQuery },
    responses: { 200: jsonResponse("A page of calibrations.", CalibrationList) },
    errors: LIST_ERRORS,
  },
  function listCalibrationsHandler(c) {
    return guarded(() => listCalibrationsResponse(c, c.var.apiKey.accountId));
  },
);
