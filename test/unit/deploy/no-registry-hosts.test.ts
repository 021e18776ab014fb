// Issue 45 item 10: the project names no package or image registry's host, in prose or in a URL a program
// fetches; setup reaches registries through their own clients (pip, npm) and whatever index they are set to.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./code-vars";

/** Registry hosts, written in pieces so this file does not name them itself. */
const HOSTS = [
  ["pypi", "org"],
  ["pythonhosted", "org"],
  ["registry", "npmjs", "org"],
  ["npmjs", "com"],
  ["npmjs", "org"],
  ["registry", "yarnpkg", "com"],
  ["deb", "debian", "org"],
  ["security", "debian", "org"],
  ["archive", "ubuntu", "com"],
  ["deb", "nodesource", "com"],
  ["ghcr", "io"],
  ["quay", "io"],
  ["registry-1", "docker", "io"],
  ["crates", "io"],
  ["proxy", "golang", "org"],
  ["huggingface", "co"],
].map((parts) => parts.join("."));

describe("issue 45 item 10: name no registry host anywhere in the project", () => {
  it('no tracked file names one (say "PyPI\'s index", "npm\'s registry")', () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter((f) => f !== "" && f !== "test/unit/deploy/no-registry-hosts.test.ts");
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), "utf8").toLowerCase();
      } catch {
        continue;
      }
      for (const host of HOSTS) if (text.includes(host)) found.push(`${file}: ${host}`);
    }
    expect(found).toEqual([]);
  });
});
