import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleOf } from "../bundle";

const root = join(__dirname, "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

describe("the specroute/drizzle entry", () => {
  it("is exported and built like the other entries, with drizzle-orm and drizzle-zod as optional peers", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["./drizzle"].import).toEqual({ types: "./dist/drizzle.d.ts", default: "./dist/drizzle.js" });
    expect(pkg.exports["./drizzle"].require).toEqual({ types: "./dist/drizzle.d.cts", default: "./dist/drizzle.cjs" });
    expect(readFileSync(join(root, "tsup.config.ts"), "utf8")).toContain('drizzle: "src/drizzle/index.ts"');
    for (const peer of ["drizzle-orm", "drizzle-zod"]) {
      expect(pkg.peerDependencies[peer]).toBeDefined();
      expect(pkg.peerDependenciesMeta[peer]).toEqual({ optional: true });
    }
  });

  it("is the only part of the source that imports drizzle-orm or drizzle-zod", () => {
    const importers = sourceFiles(join(root, "src"))
      .filter((file) => /from\s+["']drizzle-(orm|zod)/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith("src/drizzle/"))).toEqual([]);
  });

  it("stays out of the Workers bundle of an app that uses no Drizzle", async () => {
    const { bytes: inputs } = await bundleOf(`import { Hono } from "hono";
import { D1ListEndpoint, fromHono } from "specroute";
import { z } from "zod";
class ListUsers extends D1ListEndpoint {
  _meta = { model: { tableName: "users", schema: z.object({ id: z.number() }), primaryKeys: ["id"] } };
}
const app = new Hono();
fromHono(app).get("/users", ListUsers);
export default app;`);
    expect(Object.keys(inputs).filter((file) => /drizzle-(orm|zod)|src\/drizzle\//.test(file))).toEqual([]);
  });

  it("brings a D1 app only table code of the other dialects, none of their query builders", async () => {
    const { bytes: inputs } = await bundleOf(`import { Hono } from "hono";
import { fromHono } from "specroute";
import { DrizzleListEndpoint, drizzleMeta } from "specroute/drizzle";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
const users = sqliteTable("users", { id: integer().primaryKey(), name: text().notNull() });
class ListUsers extends DrizzleListEndpoint { _meta = drizzleMeta(users); dbName = "DB"; }
const app = new Hono();
fromHono(app).get("/users", ListUsers);
export default app;`);
    const files = Object.keys(inputs);
    expect(files.some((file) => file.includes("drizzle-orm/d1/"))).toBe(true);
    expect(files.filter((file) => /drizzle-orm\/(pg|mysql)-core\/(db|query-builders|session)/.test(file))).toEqual([]);
    const otherDialects = Object.entries(inputs)
      .filter(([file]) => /drizzle-orm\/(pg|mysql)-core\//.test(file))
      .reduce((sum, [, bytes]) => sum + bytes, 0);
    expect(otherDialects).toBeLessThan(16_000);
  });
});
