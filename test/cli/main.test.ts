import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { hideTags } from "../../src/cli/hide-tags";
import { USAGE } from "../../src/cli/main";
import honoApp from "./fixtures/hono-app";
import { openapi as splitRouter } from "./fixtures/hono-split";
import { router as ittyRouter } from "./fixtures/itty-app";
import { openapi as taggedRouter } from "./fixtures/tagged-internal";
import { runCli } from "./run-cli";

const FIXTURES = "test/cli/fixtures";
const USAGE_HINT = "(usage: specroute openapi <module> [options])";

/** Runs the CLI in-process from the repository root, capturing what it writes. */
const cli = (...argv: string[]) => runCli(argv);

/** Runs the CLI expecting it to fail, and returns its stderr. */
async function failure(...argv: string[]) {
  const result = await cli(...argv);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr.trimEnd()).not.toContain("\n");
  return result.stderr;
}

describe("specroute openapi", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "specroute-cli-"));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("writes the default export's document as JSON to stdout", async () => {
    const result = await cli("openapi", `${FIXTURES}/hono-app.ts`);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toEqual(honoApp.getGeneratedSchema());
    expect(result.stdout.endsWith("}\n")).toBe(true);
  });

  it("compiles every route first, and names one that cannot compile, documented or not", async () => {
    const stderr = await failure("openapi", `${FIXTURES}/broken-route.ts`);
    expect(stderr).toContain("ALL /legacy/* (Misconfigured): no database configured for this endpoint");
  });

  it("writes YAML with --format yaml", async () => {
    const result = await cli("openapi", `${FIXTURES}/hono-app.ts`, "--format", "yaml");
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith("openapi: 3.1.0\n")).toBe(true);
    expect(parseYaml(result.stdout)).toEqual(honoApp.getGeneratedSchema());
  });

  it("writes OpenAPI 3.0.3 with --openapi 3", async () => {
    const result = await cli("openapi", `${FIXTURES}/hono-app.ts`, "--openapi=3");
    const doc = JSON.parse(result.stdout);
    expect(doc.openapi).toBe("3.0.3");
    expect(doc).toEqual(honoApp.getGeneratedSchema("3"));
  });

  it("writes the file given with -o, YAML when it ends in .yaml, and stays quiet", async () => {
    const json = join(tmp, "nested", "openapi.json");
    expect(await cli("openapi", `${FIXTURES}/hono-app.ts`, "-o", json)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(JSON.parse(await readFile(json, "utf8"))).toEqual(honoApp.getGeneratedSchema());

    const yaml = join(tmp, "openapi.yaml");
    expect((await cli("openapi", `${FIXTURES}/hono-app.ts`, "--output", yaml)).code).toBe(0);
    expect(parseYaml(await readFile(yaml, "utf8"))).toEqual(honoApp.getGeneratedSchema());

    const forced = join(tmp, "forced.yaml");
    expect((await cli("openapi", `${FIXTURES}/hono-app.ts`, "-o", forced, "--format", "json")).code).toBe(0);
    expect(JSON.parse(await readFile(forced, "utf8"))).toEqual(honoApp.getGeneratedSchema());
  });

  it("writes to stdout with -o -", async () => {
    const result = await cli("openapi", `${FIXTURES}/hono-app.ts`, "-o", "-");
    expect(JSON.parse(result.stdout)).toEqual(honoApp.getGeneratedSchema());
  });

  it("finds a named router when the default export is the Hono app", async () => {
    const result = await cli("openapi", `${FIXTURES}/hono-split.ts`);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toEqual(splitRouter.getGeneratedSchema());
  });

  it("reads the router attached to an exported Hono app, and to a Workers-style { fetch } export", async () => {
    const app = await cli("openapi", `${FIXTURES}/attached-routers.ts`);
    expect(app).toMatchObject({
      code: 0,
      stderr: "specroute: using export 'default'; also routers: ittyWorker (choose one with --export)\n",
    });
    expect(JSON.parse(app.stdout)).toMatchObject({ info: { title: "Hono app" }, paths: { "/health": {} } });
    const hono = await cli("openapi", `${FIXTURES}/attached-routers.ts`, "--export", "honoWorker");
    expect(JSON.parse(hono.stdout)).toEqual(JSON.parse(app.stdout));
    const itty = await cli("openapi", `${FIXTURES}/attached-routers.ts`, "--export", "ittyWorker");
    expect(itty.stderr).toBe("");
    expect(JSON.parse(itty.stdout)).toMatchObject({ info: { title: "itty worker" }, paths: { "/health": {} } });
    expect(JSON.parse((await cli("openapi", `${FIXTURES}/itty-app.ts`, "--export", "default")).stdout)).toEqual(
      ittyRouter.getGeneratedSchema(),
    );
  });

  it("reads an itty-router router in the version its options set", async () => {
    const result = await cli("openapi", `${FIXTURES}/itty-app.ts`);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const doc = JSON.parse(result.stdout);
    expect(doc.openapi).toBe("3.0.3");
    expect(doc).toEqual(ittyRouter.getGeneratedSchema());
    expect(JSON.parse((await cli("openapi", `${FIXTURES}/itty-app.ts`, "--openapi", "3.1")).stdout).openapi).toBe(
      "3.1.0",
    );
  });

  it("writes OpenAPI 3.2 with --openapi 3.2, as a router with openapiVersion 3.2 serves it", async () => {
    const result = await cli("openapi", `${FIXTURES}/itty-app.ts`, "--openapi", "3.2");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout).openapi).toBe("3.2.0");
  });

  it("takes the export named with --export", async () => {
    const result = await cli("openapi", `${FIXTURES}/hono-split.ts`, "--export", "openapi");
    expect(JSON.parse(result.stdout)).toEqual(splitRouter.getGeneratedSchema());
  });

  it("takes the first of several routers and names the others on stderr", async () => {
    const result = await cli("openapi", `${FIXTURES}/two-routers.ts`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).info.title).toBe("Admin");
    expect(result.stderr).toBe("specroute: using export 'admin'; also routers: site (choose one with --export)\n");
    expect((await cli("openapi", `${FIXTURES}/two-routers.ts`, "--export", "site")).stderr).toBe("");
  });

  it("leaves out routes marked x-ignore", async () => {
    const doc = JSON.parse((await cli("openapi", `${FIXTURES}/ignored-routes.ts`)).stdout);
    expect(Object.keys(doc.paths)).toEqual(["/visible"]);
    expect(Object.keys(doc.paths["/visible"])).toEqual(["get"]);
  });

  it("leaves out operations with a tag given to --hide-tag, and path items left empty", async () => {
    const result = await cli("openapi", `${FIXTURES}/tagged-internal.ts`, "--hide-tag", "internal");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const doc = JSON.parse(result.stdout);
    expect(doc).toEqual(hideTags(taggedRouter.getGeneratedSchema(), ["internal"]));
    expect(Object.keys(doc.paths)).toEqual(["/users", "/admin/debug"]);
    expect(Object.keys(doc.paths["/users"])).toEqual(["get"]);
    expect(doc.tags).toEqual([{ name: "users", description: "Public" }]);

    const both = JSON.parse(
      (await cli("openapi", `${FIXTURES}/tagged-internal.ts`, "--hide-tag", "internal", "--hide-tag=debug")).stdout,
    );
    expect(Object.keys(both.paths)).toEqual(["/users"]);
  });

  it("loads built JavaScript with a plain import and accepts a router from another copy of specroute", async () => {
    const result = await cli("openapi", `${FIXTURES}/js-router.mjs`, "--openapi", "3");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toMatchObject({ openapi: "3.0.3", info: { title: "From JS" } });
  });

  it("reads the exports of TypeScript loaded as CommonJS", async () => {
    const result = await cli("openapi", `${FIXTURES}/commonjs/app.ts`);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toMatchObject({ info: { title: "CommonJS" }, paths: { "/ping": {} } });
  });

  it("lists every command with --help, and a command's options with <command> --help", async () => {
    const help = await cli("--help");
    expect(help).toMatchObject({ code: 0, stderr: "" });
    const commands = help.stdout.split("Commands:\n")[1]!.split("\n\n")[0]!.split("\n");
    expect(commands.map((line) => line.trim().split(/\s+/)[0])).toEqual(["init", "openapi", "migrate"]);
    for (const line of commands) expect(line).toMatch(/^ {2}\S+ <\w+> +\w.{20,}$/);
    expect((await cli("-h")).stdout).toBe(help.stdout);
    expect((await cli("openapi", "-h")).stdout).toBe(USAGE);
    expect((await cli("openapi", "--help")).stdout).toBe(USAGE);
    expect((await cli("migrate", "--help")).stdout).toContain("Usage: specroute migrate <dir> [--write]");
    expect((await cli("init", "--help")).stdout).toContain("Usage: specroute init <dir> --template <name>");
  });

  describe("errors", () => {
    it("reports a missing command and module path", async () => {
      expect(await failure()).toBe(
        "specroute: missing command (commands: init, openapi, migrate; see specroute --help)\n",
      );
      expect(await failure("serve")).toBe(
        "specroute: unknown command 'serve' (commands: init, openapi, migrate; see specroute --help)\n",
      );
      expect(await failure("openapi")).toBe(`specroute: missing module path ${USAGE_HINT}\n`);
      expect(await failure("openapi", "a.ts", "b.ts")).toBe(`specroute: unexpected argument 'b.ts' ${USAGE_HINT}\n`);
    });

    it("reports a module that does not exist", async () => {
      expect(await failure("openapi", `${FIXTURES}/missing.ts`)).toBe(
        `specroute: module not found: ${FIXTURES}/missing.ts\n`,
      );
      expect(await failure("openapi", FIXTURES)).toBe(`specroute: module not found: ${FIXTURES} is not a file\n`);
    });

    it("reports a module that throws on import, with where it threw", async () => {
      expect(await failure("openapi", `${FIXTURES}/throws-on-import.ts`)).toMatch(
        /^specroute: could not import test\/cli\/fixtures\/throws-on-import\.ts: DATABASE_URL is not set \(at test\/cli\/fixtures\/throws-on-import\.ts:\d+:\d+\)\n$/,
      );
    });

    it("lists the exports when --export names none of them", async () => {
      expect(await failure("openapi", `${FIXTURES}/plain-routers.ts`, "--export", "api")).toBe(
        `specroute: ${FIXTURES}/plain-routers.ts has no export 'api' (exports: count, default, itty, worker)\n`,
      );
    });

    it("says what to do with a Hono app or itty-router router no specroute router was attached to", async () => {
      expect(await failure("openapi", `${FIXTURES}/plain-routers.ts`)).toBe(
        "specroute: export 'default' is a Hono app without a specroute router: call fromHono() on it, or export the value fromHono() returned\n",
      );
      expect(await failure("openapi", `${FIXTURES}/plain-routers.ts`, "--export", "itty")).toBe(
        "specroute: export 'itty' is an itty-router router without a specroute router: call fromIttyRouter() on it, or export the value fromIttyRouter() returned\n",
      );
      expect(await failure("openapi", `${FIXTURES}/plain-routers.ts`, "--export", "count")).toBe(
        "specroute: export 'count' is a number, not a specroute router: export the value returned by fromHono() or fromIttyRouter()\n",
      );
      expect(await failure("openapi", `${FIXTURES}/plain-routers.ts`, "--export", "worker")).toBe(
        "specroute: export 'worker' is an object, not a specroute router: export the value returned by fromHono() or fromIttyRouter()\n",
      );
    });

    it("reports a module without any router", async () => {
      expect(await failure("openapi", `${FIXTURES}/no-router.ts`)).toBe(
        `specroute: ${FIXTURES}/no-router.ts exports no specroute router (exports: helper, name): export the value returned by fromHono() or fromIttyRouter()\n`,
      );
    });

    it("refuses bad --format and --openapi values", async () => {
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "--format", "xml")).toBe(
        "specroute: --format must be json or yaml, got 'xml'\n",
      );
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "--openapi", "3.0")).toBe(
        "specroute: --openapi must be 3, 3.1 or 3.2, got '3.0'\n",
      );
    });

    it("refuses unknown options, missing values and repeated options", async () => {
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "--watch")).toBe(
        "specroute: unknown option '--watch' (see specroute openapi --help)\n",
      );
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "-x")).toBe(
        "specroute: unknown option '-x' (see specroute openapi --help)\n",
      );
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "-o")).toBe("specroute: option '-o' needs a value\n");
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "--export", "--format", "json")).toBe(
        "specroute: option '--export' needs a value\n",
      );
      expect(await failure("openapi", `${FIXTURES}/hono-app.ts`, "--format=yaml", "--format", "json")).toBe(
        "specroute: option '--format' given more than once\n",
      );
    });

    it("checks the command line before importing anything", async () => {
      expect(await failure("openapi", `${FIXTURES}/throws-on-import.ts`, "--format", "xml")).toBe(
        "specroute: --format must be json or yaml, got 'xml'\n",
      );
    });
  });
});
