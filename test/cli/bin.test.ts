import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import honoApp from "./fixtures/hono-app";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function runBin(...args: string[]) {
  return spawnSync(process.execPath, ["bin/specroute.mjs", ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
}

describe("bin/specroute.mjs", () => {
  it("prints the document of a TypeScript app module and exits 0", () => {
    const child = runBin("openapi", "test/cli/fixtures/hono-app.ts");
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual(honoApp.getGeneratedSchema());
  });

  it("exits 1 with a one-line message", () => {
    const child = runBin("openapi", "test/cli/fixtures/plain-routers.ts");
    expect(child.status).toBe(1);
    expect(child.stdout).toBe("");
    expect(child.stderr).toBe(
      "specroute: export 'default' is a Hono app without a specroute router: call fromHono() on it, or export the value fromHono() returned\n",
    );
  });
});
