import { createConsoleCalibration } from "../console/calibrations/create";
import { deleteConsoleCalibration } from "../console/calibrations/delete";
import { getConsoleCalibration } from "../console/calibrations/get";
import { listConsoleCalibrations } from "../console/calibrations/list";
import { previewConsoleCalibration } from "../console/calibrations/preview";
import type { Endpoint } from "../define";
import { createCalibration } from "./create";
import { deleteCalibration } from "./delete";
import { getCalibration } from "./get";
import { listCalibrations } from "./list";
import { previewCalibration } from "./preview";

/** Calibrations (issue 44): any key of the account with `decide`, live or test, and their console twins. */
export const CALIBRATION_ENDPOINTS: readonly Endpoint[] = [
  createCalibration,
  previewCalibration,
  listCalibrations,
  getCalibration,
  deleteCalibration,
  createConsoleCalibration,
  previewConsoleCalibration,
  listConsoleCalibrations,
  getConsoleCalibration,
  deleteConsoleCalibration,
];
