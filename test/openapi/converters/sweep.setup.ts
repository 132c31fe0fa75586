// Loaded by vitest.converters.config.ts: every document any test builds is built twice more, with the
// direct converter and with zod's alone, in 3.0 and 3.1, and the four must match their pairs exactly.
import { isDeepStrictEqual } from "node:util";
import { vi } from "vitest";

vi.mock("../../../src/openapi/document", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../../src/openapi/document")>();
  const { useSchemaConverter } = await import("../../../src/schema/zod/json-schema");
  const { recordSweep } = await import("./sweep-record");
  const buildDocument: typeof original.buildDocument = (routes, config) => {
    for (const openapiVersion of ["3", "3.1"] as const) {
      const variant = { ...config, openapiVersion };
      const built: Partial<Record<"zod" | "direct", unknown>> = {};
      for (const converter of ["zod", "direct"] as const) {
        useSchemaConverter(converter);
        try {
          built[converter] = original.buildDocument(routes, variant);
        } catch (err) {
          built[converter] = `throws: ${(err as Error).message}`;
        } finally {
          useSchemaConverter("direct");
        }
      }
      const same =
        isDeepStrictEqual(built.zod, built.direct) && JSON.stringify(built.zod) === JSON.stringify(built.direct);
      recordSweep({ version: openapiVersion, routes: routes.length, same, zod: built.zod, direct: built.direct });
      if (!same) throw new Error(`The direct converter wrote another ${openapiVersion} document than zod's`);
    }
    return original.buildDocument(routes, config);
  };
  return { ...original, buildDocument };
});
