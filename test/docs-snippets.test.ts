import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..");
const outDir = join(root, ".artifacts", "snippets");

/** Every ```ts block of README.md and docs/*.md, named after its file and position. */
function snippets(): Array<{ name: string; code: string }> {
  const files = ["README.md", ...readdirSync(join(root, "docs")).map((file) => join("docs", file))].filter((file) =>
    file.endsWith(".md"),
  );
  return files.flatMap((file) =>
    [...readFileSync(join(root, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => ({
      name: `${file.replace(/[^A-Za-z0-9]+/g, "-")}${index + 1}`,
      code: match[1]!,
    })),
  );
}

describe("documentation snippets", () => {
  it("all compile", () => {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const all = snippets();
    expect(all.length).toBeGreaterThan(3);
    for (const { name, code } of all) {
      // Snippets import siblings by the names the docs give them ("./search-tasks").
      writeFileSync(join(outDir, `${name}.ts`), code);
    }
    // The getting-started page imports "./search-tasks" from its first snippet.
    const first = all.find((snippet) => snippet.code.includes("class SearchTasks"));
    if (first) writeFileSync(join(outDir, "search-tasks.ts"), first.code);
    writeFileSync(
      join(outDir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.json",
        include: ["./*.ts"],
        compilerOptions: { noUnusedLocals: false },
      }),
    );
    let output = "";
    try {
      execFileSync(join(root, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", join(outDir, "tsconfig.json")], {
        encoding: "utf8",
      });
    } catch (err) {
      output = (err as { stdout?: string }).stdout ?? String(err);
    }
    expect(output).toBe("");
  }, 60_000);

  it("the README quick start runs as written", async () => {
    const quickStart = snippets().find(
      (snippet) => snippet.name.startsWith("README") && snippet.code.includes("fromHono"),
    );
    expect(quickStart).toBeDefined();
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, "quick-start-run.ts");
    writeFileSync(file, quickStart!.code);
    const { app } = await import(file);
    const created = await app.request("/tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 1, title: "Try specroute" }),
    });
    expect(await created.json()).toEqual({ id: 1, title: "Try specroute", done: false });
    expect(await (await app.request("/tasks/1")).json()).toEqual({ id: 1, title: "Try specroute", done: false });
    expect((await app.request("/tasks/2")).status).toBe(404);
    const invalid = { method: "POST", headers: { "content-type": "application/json" }, body: "{}" };
    expect((await app.request("/tasks", invalid)).status).toBe(400);
    const doc = await (await app.request("/openapi.json")).json();
    expect(Object.keys(doc.paths)).toEqual(["/tasks", "/tasks/{id}"]);
  });
});
