// The direct converter must write the documents zod's converter writes, byte for byte: every document
// the test suite's apps produce is built with each converter, in OpenAPI 3.0 and 3.1, and compared.
import type { Hono } from "hono";
import { afterAll, describe, expect, it, vi } from "vitest";
import { isSpecrouteRouter } from "../../../src/cli/load-router";
import type { DocumentConfig, DocumentRoute } from "../../../src/openapi/types";

type Build = typeof import("../../../src/openapi/document").buildDocument;
const calls: Array<{ source: string; routes: DocumentRoute[]; config: DocumentConfig }> = [];
let source = "";
let original: Build | undefined;

// Records every route table a router hands the builder, to build it again below in every way.
vi.mock("../../../src/openapi/document", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../../src/openapi/document")>();
  original = actual.buildDocument;
  const buildDocument: Build = (routes, config) => {
    calls.push({ source, routes, config });
    return actual.buildDocument(routes, config);
  };
  return { ...actual, buildDocument };
});

const { useSchemaConverter } = await import("../../../src/schema/zod/json-schema");
afterAll(() => useSchemaConverter("direct"));

/** The router exports of a module, each asked for its document. */
async function documentsOfModule(path: string): Promise<void> {
  source = path;
  const namespace = (await import(/* @vite-ignore */ path)) as Record<string, unknown>;
  let routers = 0;
  for (const value of Object.values(namespace)) {
    if (!isSpecrouteRouter(value)) continue;
    value.getGeneratedSchema();
    routers++;
  }
  expect(routers, `${path} exports a router`).toBeGreaterThan(0);
}

async function documentOfApp(name: string, app: { request(path: string): Response | Promise<Response> }, url: string) {
  source = name;
  const response = await app.request(url);
  expect(response.status, `${name} serves ${url}`).toBe(200);
}

function build(call: (typeof calls)[number], converter: "zod" | "direct", version: "3" | "3.1"): string {
  useSchemaConverter(converter);
  try {
    return JSON.stringify(original!(call.routes, { ...call.config, openapiVersion: version }));
  } catch (err) {
    return `throws ${(err as Error).message}`;
  } finally {
    useSchemaConverter("direct");
  }
}

describe("the direct converter writes zod's documents", () => {
  it("for every app of the test suite, the example and the benchmark", async () => {
    const { userRoutes } = await import("../fixtures");
    const { buildDocument } = await import("../../../src/openapi/document");
    source = "test/openapi/fixtures.ts";
    buildDocument(userRoutes(), { openapiVersion: "3.1", schema: {}, problemDetails: false });
    buildDocument(userRoutes(), { openapiVersion: "3", schema: {}, problemDetails: true });

    const { createApp } = await import("../../../examples/tasks/app");
    await documentOfApp("examples/tasks", createApp().app, "/openapi.json");
    const chanfanaApp = (await import("../../compat/chanfana-app/app")).default;
    await documentOfApp("test/compat/chanfana-app", chanfanaApp, "/api/openapi.json");
    const benchApp = "../../../bench/apps/specroute-hono.js";
    const bench = (await import(/* @vite-ignore */ benchApp)) as { createGeneratedApp(count: number): Hono };
    await documentOfApp("bench/apps/specroute-hono.js", bench.createGeneratedApp(9), "/openapi.json");

    for (const fixture of [
      "env-app.ts",
      "hono-app.ts",
      "hono-split.ts",
      "ignored-routes.ts",
      "itty-app.ts",
      "tagged-internal.ts",
      "two-routers.ts",
      "js-router.mjs",
    ]) {
      await documentsOfModule(`../../cli/fixtures/${fixture}`);
    }

    expect(calls.length).toBeGreaterThanOrEqual(13);
    for (const call of calls) {
      for (const version of ["3", "3.1"] as const) {
        const viaZod = build(call, "zod", version);
        expect(viaZod.startsWith("{"), `${call.source} builds a ${version} document`).toBe(true);
        expect(build(call, "direct", version), `${call.source}, OpenAPI ${version}`).toBe(viaZod);
      }
    }
  });
});
