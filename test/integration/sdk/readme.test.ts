// sdk/README.md's examples run as written against the edge Worker on the test stack.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { credit, seed, useMoneyEdge } from "../../support/money-harness";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const world = useMoneyEdge("ok");

/** The ```ts blocks of a README (or of its text from `section` to the next `## ` heading), importing the package from its source. */
function examples(file: string, section?: string): string[] {
  let readme = readFileSync(join(ROOT, file), "utf8");
  if (section) readme = (readme.split(section)[1] ?? "").split("\n## ")[0] ?? "";
  const index = join(ROOT, "sdk/src/index.ts");
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.replaceAll('"@svc/sdk"', JSON.stringify(index)),
  );
}

describe("the project README's SDKs section: the TypeScript example runs", () => {
  it("five lines, a probability and a charge", async () => {
    const [code, ...more] = examples("README.md", "## SDKs");
    expect([code?.trim().split("\n").length, more.length]).toEqual([5, 0]);
    const acct = await seed({ keys: [{ mode: "live" }] });
    await credit(world.edge.url, acct.accountId, 100_000_000);
    vi.stubEnv("SVC_BASE_URL", world.edge.url);
    vi.stubEnv("SVC_API_KEY", acct.keys[0]!.secret);
    const dir = join(ROOT, ".cache/sdk-readme");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `project-readme-${Date.now()}.ts`);
    writeFileSync(file, `${code}\nexport {};\n`);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await import(file);
      expect(log.mock.calls[0]).toEqual([expect.any(Number), expect.any(Number)]);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});

describe("sdk/README.md examples run", () => {
  it.each(examples("sdk/README.md").map((code, i) => [i + 1, code] as const))(
    "example %i",
    async (n, code) => {
      const acct = await seed({ keys: [{ mode: "live" }, { mode: "test" }] });
      await credit(world.edge.url, acct.accountId, 100_000_000);
      vi.stubEnv("SVC_BASE_URL", world.edge.url);
      vi.stubEnv("SVC_API_KEY", acct.keys[0]!.secret);
      vi.stubEnv("SVC_TEST_KEY", acct.keys[1]!.secret);
      const dir = join(ROOT, ".cache/sdk-readme");
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `example-${n}-${Date.now()}.ts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      try {
        await import(file);
        expect(log).toHaveBeenCalled();
        if (n === 2)
          expect(log.mock.calls[0]?.[0]).toMatch(
            /^fix questions\.q\.instructions: invalid_value \(request req_/,
          );
        if (n === 3) expect(log.mock.calls[1]).toEqual([true, true]);
        if (n === 4)
          expect(log.mock.calls[0]?.slice(0, 2)).toEqual([
            "done",
            expect.stringMatching(/^svc-1\.\d+\.\d+$/),
          ]);
        if (n === 5)
          expect(log.mock.calls.at(-1)).toEqual([
            expect.stringMatching(/^svc-1\.\d+\.\d+$/),
            expect.stringMatching(/^(calib_[0-9A-Z]{26}|cal-\d{8}-\d+)$/),
          ]);
        // Batches (issue 42): needs the batch routes.
        if (n === 6) {
          expect(log.mock.calls[0]?.[0]).toBe("completed");
          expect(log.mock.calls.slice(1).map((c) => c[0])).toEqual(["ticket-0", "ticket-1", "ticket-2"]);
        }
        if (n === 7) expect(log.mock.calls.at(-1)).toEqual([204, "signature_mismatch"]);
      } finally {
        log.mockRestore();
        vi.unstubAllEnvs();
      }
    },
  );
});
