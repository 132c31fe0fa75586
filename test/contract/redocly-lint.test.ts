import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { openapi } from "../../examples/tasks/app";

/** Redocly's findings of one severity on a document, as `rule: message @ pointer`. */
async function lint(doc: unknown, severity: "error" | "warn"): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "/openapi.json", config });
  return problems
    .filter((problem) => problem.severity === severity)
    .map((problem) => `${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`);
}

describe("the example's document under redocly's recommended rules", () => {
  for (const version of ["3", "3.1"] as const) {
    it(`has no errors (OpenAPI ${version})`, async () => {
      expect(await lint(openapi.getGeneratedSchema(version), "error")).toEqual([]);
    });
  }

  it("reports a document without servers, so the check above can fail", async () => {
    const doc = structuredClone(openapi.getGeneratedSchema("3.1")) as any;
    delete doc.servers;
    expect(await lint(doc, "error")).toEqual(["no-empty-servers: Servers must be present. @ #/openapi"]);
  });
});
