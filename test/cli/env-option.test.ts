import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli";

const cli = (...argv: string[]) => runCli(argv);

describe("specroute openapi --env", () => {
  it("writes the document the given environment sees", async () => {
    const result = await cli(
      "openapi",
      "test/cli/fixtures/env-app.ts",
      "--env",
      "PUBLIC_URL=https://api.example.com",
      "--env=ENVIRONMENT=production",
    );
    expect(result.stderr).toBe("");
    const doc = JSON.parse(result.stdout);
    expect(doc.servers).toEqual([{ url: "https://api.example.com" }]);
    expect(Object.keys(doc.paths)).toEqual(["/tasks"]);
  });

  it("without --env the document sees an empty environment", async () => {
    const doc = JSON.parse((await cli("openapi", "test/cli/fixtures/env-app.ts")).stdout);
    expect(doc.servers).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(["/tasks", "/debug"]);
  });

  it("a value may contain '=' and the last setting of a key wins", async () => {
    const result = await cli(
      "openapi",
      "test/cli/fixtures/env-app.ts",
      "--env",
      "PUBLIC_URL=https://a.example.com",
      "--env",
      "PUBLIC_URL=https://b.example.com/?x=1",
    );
    expect(JSON.parse(result.stdout).servers).toEqual([{ url: "https://b.example.com/?x=1" }]);
  });

  it("rejects --env without KEY=VALUE", async () => {
    const result = await cli("openapi", "test/cli/fixtures/env-app.ts", "--env", "PUBLIC_URL");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("specroute: --env needs KEY=VALUE, got 'PUBLIC_URL'\n");
  });
});
