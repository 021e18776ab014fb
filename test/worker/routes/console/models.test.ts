import { describe, expect, it } from "vitest";
import { ALIASES } from "../../../../schema/models";
import { modelList } from "../../../../workers/routes/models/list";
import { consoleCall, signIn } from "../../../support/console";
import { expectError } from "../../../support/worker-http";

describe("GET /v1/console/models (listConsoleModels): the console's twin of GET /v1/models", () => {
  it("the same list as GET /v1/models with the session: the console reads which version svc-1 answers with", async () => {
    const s = await signIn();
    const res = await consoleCall("GET", "/v1/console/models", { cookie: s.cookie });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ReturnType<typeof modelList>;
    expect(body).toEqual(modelList());
    const gpu = body.data.find((m) => m.alias === "svc-1" && m.served_by === "gpu" && m.status === "active");
    expect(gpu?.id).toBe(ALIASES["svc-1"]);
  });

  it("signed out → 401", async () => {
    await expectError(await consoleCall("GET", "/v1/console/models"), 401, "invalid_session");
  });
});
