import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkCorpus } from "./corpus.case";

describe("the converter corpus on the installed zod", () => {
  it("runs on a later zod than the lowest run", () => {
    expect(z.core.version.major).toBe(4);
    expect(z.core.version.minor).toBeGreaterThan(1);
  });

  it("differs from z.toJSONSchema only as the expected-differences table says", async () => {
    await checkCorpus(z, "latest");
  });
});
