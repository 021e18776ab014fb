import { join } from "node:path";
import { findModel } from "../../schema/models";
import { CALIBRATION_DIR } from "./calibration";

/** The artifact the model catalog pins for `version` (undefined for a version it does not know → newest). */
export function catalogCalibrationPath(version: string): string | undefined {
  const name = findModel(version)?.calibration;
  return name ? join(CALIBRATION_DIR, `${name}.json`) : undefined;
}
