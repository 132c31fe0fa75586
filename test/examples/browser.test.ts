import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const screenshots = join(root, ".artifacts", "screenshots");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  // CI sets SPECROUTE_REQUIRE_BROWSER: there a missing browser is a failure, not a skip.
  if (process.env.SPECROUTE_REQUIRE_BROWSER)
    throw new Error(`No Chromium at ${CHROMIUM}, and CI requires the browser test`);
  console.warn(`[browser test] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `npm start`'s server on a free port with its own database; resolves once it listens. */
async function startExample(dbFile: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(join(root, "node_modules", ".bin", "tsx"), ["examples/tasks/server.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DB_FILE: dbFile, API_KEY: "browser-key" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example did not start: ${output}`)), 30_000);
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      if (output.includes("Tasks API on")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on("data", (chunk) => {
      output += chunk;
    });
    child.once("exit", (code) => reject(new Error(`example exited with ${code}: ${output}`)));
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

describe.skipIf(!haveChromium)("docs pages in a real browser (headless Chromium)", () => {
  let browser: Browser;
  let page: Page;
  let server: { base: string; child: ChildProcess };
  const dir = mkdtempSync(join(tmpdir(), "specroute-browser-"));
  const dbFile = join(dir, "tasks.db");
  /** Every request the page made to an origin other than the server's, and every error it logged, per test. */
  const offsite: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    server = await startExample(dbFile);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
    page = await browser.newPage();
    // The pages are self-hosted: a request leaving the server's origin is recorded (the test fails) and refused.
    page.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith("data:") && new URL(url).origin !== server.base) offsite.push(url);
    });
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  }, 60_000);

  afterEach(() => {
    const seen = { offsite: [...offsite], consoleErrors: [...consoleErrors] };
    offsite.length = 0;
    consoleErrors.length = 0;
    expect(seen, "the page asked another origin or logged an error").toEqual({ offsite: [], consoleErrors: [] });
  });

  afterAll(async () => {
    await browser?.close();
    server?.child.kill("SIGINT");
    await new Promise((resolve) => server?.child.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens Swagger UI and authorizes with the API key, unless the page kept an earlier authorization (persistAuthorization). */
  async function openSwaggerUi(): Promise<void> {
    await page.goto(`${server.base}/docs`);
    await page.waitForSelector(".opblock", { timeout: 20_000 });
    await page.click("button.authorize");
    await page.waitForSelector(".modal-ux");
    if ((await page.locator(".modal-ux input[type=text]").count()) > 0) {
      await page.fill(".modal-ux input[type=text]", "browser-key");
      await page.click(".modal-ux button.authorize");
    }
    await page.click(".modal-ux button.btn-done");
  }

  /** Every row of a table of the example's database. */
  function rows(sql: string): unknown[] {
    const sqlite = new Database(dbFile, { readonly: true });
    try {
      return sqlite.prepare(sql).all();
    } finally {
      sqlite.close();
    }
  }

  it("renders every operation in Swagger UI and creates a project with Try it out", async () => {
    await openSwaggerUi();
    const operations = await page.locator(".opblock").count();
    expect(operations).toBe(14);
    expect(await page.locator(".opblock-summary-path").allInnerTexts()).toContain("/projects/{projectId}/tasks/{id}");

    const operation = page.locator("#operations-projects-post_CreateProject");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.try-out__btn").click();
    await operation.locator("textarea.body-param__text").fill(JSON.stringify({ name: "From the browser" }));
    await operation.locator("button.execute").click();
    const status = operation.locator(".live-responses-table tbody .response-col_status").first();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain("201");
    await page.screenshot({ path: join(screenshots, "swagger-ui.png"), fullPage: true });

    expect(rows("SELECT name FROM projects")).toEqual([{ name: "From the browser" }]);
  }, 60_000);

  it("changes one field with PATCH in Try it out and leaves the others as they were", async () => {
    const created = await fetch(`${server.base}/projects`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "browser-key" },
      body: JSON.stringify({ name: "Before the patch", description: "Kept by a PATCH of the name" }),
    });
    const { id } = (await created.json()).result;
    const [before] = rows(`SELECT * FROM projects WHERE id = ${Number(id)}`) as Array<Record<string, unknown>>;

    await openSwaggerUi();
    const operation = page.locator("#operations-projects-patch_UpdateProject");
    await operation.locator(".opblock-summary").click();
    // The PATCH body documents no default, so the example Swagger UI offers holds no `description: null`.
    const example = JSON.parse((await operation.locator(".body-param__example").textContent()) ?? "{}");
    expect(example).not.toHaveProperty("description", null);
    await operation.locator("button.try-out__btn").click();
    await operation.locator('tr[data-param-name="id"] input').fill(String(id));
    await operation.locator("textarea.body-param__text").fill(JSON.stringify({ name: "After the patch" }));
    await operation.locator("button.execute").click();
    const status = operation.locator(".live-responses-table tbody .response-col_status").first();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain("200");
    await page.screenshot({ path: join(screenshots, "swagger-ui-patch.png"), fullPage: true });

    expect(rows(`SELECT * FROM projects WHERE id = ${Number(id)}`)).toEqual([{ ...before, name: "After the patch" }]);
    expect(before.description).toBe("Kept by a PATCH of the name");
  }, 60_000);

  it("uploads a file with Try it out, as multipart form data", async () => {
    const created = await fetch(`${server.base}/projects`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "browser-key" },
      body: JSON.stringify({ name: "With attachments" }),
    });
    const projectId = String((await created.json()).result.id);

    await openSwaggerUi();

    const operation = page.locator("#operations-attachments-post_UploadAttachment");
    await operation.locator(".opblock-summary").click();
    await operation.locator("button.try-out__btn").click();
    await operation.locator('tr[data-param-name="projectId"] input').fill(projectId);
    const content = "Uploaded from Swagger UI\n";
    await operation
      .locator("input[type=file]")
      .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from(content) });
    await operation.locator('tr[data-property-name="note"] input[type=text]').fill("from the browser");
    await operation.locator("button.execute").click();
    const status = operation.locator(".live-responses-table tbody .response-col_status").first();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain("201");
    await page.screenshot({ path: join(screenshots, "swagger-ui-upload.png"), fullPage: true });

    expect(rows("SELECT projectId, filename, content_type, size, note FROM attachments")).toEqual([
      {
        projectId: Number(projectId),
        filename: "notes.txt",
        content_type: "text/plain",
        size: content.length,
        note: "from the browser",
      },
    ]);
  }, 60_000);

  it("renders ReDoc and Scalar with the API title", async () => {
    for (const [path, file] of [
      ["/redocs", "redoc.png"],
      ["/scalar", "scalar.png"],
    ] as const) {
      await page.goto(`${server.base}${path}`);
      await page.getByText("Tasks API", { exact: false }).first().waitFor({ timeout: 20_000 });
      expect(await page.locator("body").textContent(), path).toContain("Tasks API");
      await page.screenshot({ path: join(screenshots, file) });
    }
  }, 60_000);

  it("loads /docs, /redocs and /scalar, icon included, from the server's own origin only", async () => {
    for (const [path, rendered] of [
      ["/docs", ".opblock"],
      ["/redocs", "text=Tasks API"],
      ["/scalar", "text=Tasks API"],
    ] as const) {
      const own: Array<{ url: string; status: number }> = [];
      const record = (response: { url(): string; status(): number }) => {
        if (response.url().startsWith(server.base)) own.push({ url: response.url(), status: response.status() });
      };
      page.on("response", record);
      await page.goto(`${server.base}${path}`);
      await page.waitForSelector(rendered, { timeout: 20_000 });
      // Late requests (fonts, Scalar's agent, Redoc's logo) come after the first render; wait for them.
      await page.waitForLoadState("networkidle");
      page.off("response", record);
      expect(offsite, path).toEqual([]);
      expect(
        own.filter((r) => r.status >= 400),
        path,
      ).toEqual([]);
      expect(
        own.map((r) => r.url),
        path,
      ).toContain(`${server.base}/docs-assets/favicon.svg`);
    }
  }, 90_000);
});
