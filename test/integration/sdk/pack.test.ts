// The published form of the SDK: `npm pack` in sdk/, the tarball installed into an empty project, the
// README's first example type-checked there against the package's own .d.ts and run against the edge.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { credit, seed, useMoneyEdge } from "../../support/money-harness";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const world = useMoneyEdge("ok");
const work = mkdtempSync(join(tmpdir(), "svc-sdk-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", timeout: 120_000 });
// The GPU stand-in answers from this process: the example runs without blocking it.
const runAsync = promisify(execFile);

/** The first ```ts block of a README, or of its text after `section`. */
function firstExample(file: string, section = ""): string {
  const text = readFileSync(join(ROOT, file), "utf8");
  const readme = section ? (text.split(section)[1] ?? "") : text;
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error(`${file} has no ts example`);
  return block;
}

describe("npm pack: the tarball installs into an empty project and runs the README examples", () => {
  it("packs dist, README, CHANGELOG and LICENSE (no source), version and licence set", () => {
    const [packed] = JSON.parse(
      run("npm", ["pack", "--json", "--pack-destination", work], join(ROOT, "sdk")),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "CHANGELOG.md", "package.json"]));
    expect(files).toContain("dist/sdk/src/index.js");
    expect(files).toContain("dist/sdk/src/index.d.ts");
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(ROOT, "sdk/package.json"), "utf8"));
    expect([manifest.license, manifest.private, manifest.version]).toEqual([
      "Apache-2.0",
      undefined,
      expect.stringMatching(/^\d+\.\d+\.\d+$/),
    ]);
    expect(readFileSync(join(ROOT, "sdk/CHANGELOG.md"), "utf8")).toContain(`## ${manifest.version}`);
  });

  it("installs with no other package, type-checks the examples (strict, NodeNext) and runs them", async () => {
    const tarball = join(work, readdirTarball());
    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    run("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], app);
    const installed = readdirSync(join(app, "node_modules"), { recursive: true }) as string[];
    expect(installed.filter((p) => !p.startsWith("@svc") && !p.startsWith("."))).toEqual([]);
    writeFileSync(join(app, "index.ts"), firstExample("sdk/README.md"));
    writeFileSync(join(app, "project-readme.ts"), firstExample("README.md", "## SDKs"));
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          outDir: "out",
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
        },
        files: ["index.ts", "project-readme.ts"],
      }),
    );
    run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], app);

    const acct = await seed({ keys: [{ mode: "live" }] });
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const env = { ...process.env, SVC_BASE_URL: world.edge.url, SVC_API_KEY: acct.keys[0]!.secret };
    const runExample = async (file: string) =>
      (await runAsync(process.execPath, [file], { cwd: app, env, timeout: 60_000 })).stdout
        .replace(/\s+/g, " ")
        .trim();
    // intent, { low, medium, high }, the probability of "angry", the charge (console.log's formatting)
    expect(await runExample("out/index.js")).toMatch(
      /^(refund|replacement|info) \{ low: [0-9.]+, medium: [0-9.]+, high: [0-9.]+ \} [0-9.]+ \d+$/,
    );
    expect(await runExample("out/project-readme.js")).toMatch(/^[0-9.]+ \d+$/);
  });
});

function readdirTarball(): string {
  const found = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!found) throw new Error("npm pack wrote no tarball");
  return found;
}
