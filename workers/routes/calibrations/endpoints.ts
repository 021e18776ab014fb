import { createConsoleCalibration } from "../console/calibrations/create";
import { deleteConsoleCalibration } from "../console/calibrations/delete";
import { getConsoleCalibration } from "../console/calibrations/get";
import { listConsoleCalibrations } from "../console/calibrations/list";
import type { Endpoint } from "../define";
import { createCalibration } from "./create";
import { deleteCalibration } from "./delete";
import { getCalibration } from "./get";
import { listCalibrations } from "./list";

/** Calibrations (issue 44): any key of the account with `decide`, live or test, and their console twins. */
export const CALIBRATION_ENDPOINTS: readonly Endpoint[] = [
  createCalibration,
  listCalibrations,
  getCalibration,
  deleteCalibration,
  createConsoleCalibration,
  listConsoleCalibrations,
  getConsoleCalibration,
  deleteConsoleCalibration,
];
