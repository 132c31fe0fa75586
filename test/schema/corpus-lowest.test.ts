import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import ownPackage from "../../package.json" with { type: "json" };
import { checkCorpus } from "./corpus.case";

// Everything this file loads (the seam, its converter, the tasks models) gets zod 4.1.0 for "zod".
vi.mock("zod", async () => await import("zod-lowest"));

describe("the converter corpus on the lowest zod the package accepts", () => {
  it("runs on the lowest version the peerDependencies accept", () => {
    const { major, minor, patch } = z.core.version;
    expect(ownPackage.peerDependencies.zod).toBe(`^${major}.${minor}.${patch}`);
    expect(ownPackage.devDependencies["zod-lowest"]).toBe(`npm:zod@${major}.${minor}.${patch}`);
  });

  it("differs from z.toJSONSchema only as the expected-differences table says", async () => {
    await checkCorpus(z, "lowest");
  });
});
