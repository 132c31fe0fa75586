import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openapi as tasksApi } from "../../examples/tasks/app";
import "../../src";
import { patchFields, withoutDefault } from "../../src/endpoints/schema-helpers";

/** JSON pointers of every `default` keyword under `node`. */
function defaultsIn(node: unknown, at = ""): string[] {
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => [
    ...(key === "default" ? [`${at}/default`] : []),
    ...defaultsIn(value, `${at}/${key}`),
  ]);
}

const Project = z.object({
  name: z.string().min(1),
  description: z.string().nullable().default(null),
  budget: z.number().int().default(0).optional(),
  status: z
    .enum(["open", "done"])
    .default("open")
    .openapi({ description: "Where the project stands", example: "done" }),
  tags: z.array(z.string()).prefault([]),
  archived: z.boolean().default(false).readonly().nullable(),
  color: z.string().openapi({ default: "blue", example: "red" }),
});

describe("patchFields", () => {
  it("validates without filling in any default: the result holds only the members sent", () => {
    expect(patchFields(Project).parse({ name: "Renamed" })).toEqual({ name: "Renamed" });
    expect(patchFields(Project).parse({})).toEqual({});
  });

  it("still checks the members that are sent", () => {
    const patch = patchFields(Project);
    expect(patch.safeParse({ name: "" }).success).toBe(false);
    expect(patch.safeParse({ status: "closed" }).success).toBe(false);
    expect(patch.parse({ description: null, archived: null, budget: 3 })).toEqual({
      description: null,
      archived: null,
      budget: 3,
    });
  });

  it("documents no default at any level, and keeps the members' other metadata", () => {
    const json = z.toJSONSchema(patchFields(Project), { io: "input" }) as any;
    expect(defaultsIn(json)).toEqual([]);
    expect(json.required).toBeUndefined();
    expect(json.properties.status).toMatchObject({ description: "Where the project stands", example: "done" });
    expect(json.properties.color).toMatchObject({ type: "string", example: "red" });
  });

  it("leaves the model itself untouched: PUT and create still default", () => {
    patchFields(Project);
    expect(Project.parse({ name: "A", color: "red" })).toMatchObject({ description: null, status: "open", tags: [] });
    expect(defaultsIn(z.toJSONSchema(Project, { io: "input" }))).not.toEqual([]);
  });

  it("keeps a strict object strict", () => {
    const patch = patchFields(z.strictObject({ name: z.string().default("x") }));
    expect(patch.safeParse({ other: 1 }).success).toBe(false);
  });
});

describe("withoutDefault", () => {
  it("returns a schema without a default unchanged", () => {
    const plain = z.string().nullable().optional();
    expect(withoutDefault(plain)).toBe(plain);
  });
});

describe("the tasks example's PATCH operations", () => {
  const doc = tasksApi.schema as any;

  it("document no default anywhere in their request bodies (Swagger UI pre-fills none)", () => {
    const patches = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      item.patch ? [[path, item.patch.requestBody] as const] : [],
    );
    expect(patches.map(([path]) => path)).toEqual(["/projects/{id}", "/projects/{projectId}/tasks/{id}"]);
    for (const [path, body] of patches) {
      expect(body, path).toBeDefined();
      expect(defaultsIn(body), path).toEqual([]);
    }
    // The create operations keep theirs.
    expect(defaultsIn(doc.paths["/projects"].post.requestBody)).not.toEqual([]);
  });
});
