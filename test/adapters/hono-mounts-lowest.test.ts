import { Hono } from "hono-lowest";
import { describe, expect, it } from "vitest";
import ownPackage from "../../package.json" with { type: "json" };
import { describeHonoMounts, installedVersion } from "./hono-mounts.case";

describe("the Hono the lowest mount suite runs on", () => {
  it("is the lowest version the package's peerDependencies accept", () => {
    expect(ownPackage.peerDependencies.hono).toBe(`^${installedVersion("hono-lowest")}`);
  });
});

describeHonoMounts(installedVersion("hono-lowest"), Hono);
