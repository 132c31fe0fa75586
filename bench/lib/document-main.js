// Case 2, one fresh process: `node lib/document-main.js <app module> <routes> <repeat budget ms> <max repeats>`.
// Builds the generated app, then times GET /openapi.json in-process (app.fetch + reading the body):
// the first hit, then repeats until the budget or the maximum count is reached.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR } from "./frameworks.js";

process.on("disconnect", () => process.exit(0));
const [module, routes, budgetMs, maxRepeats] = process.argv.slice(2);

try {
  // Node loads its fetch classes on their first use; load them before any timer, so the first document
  // measures the framework and not the runtime (the cold-start case measures start-up as a whole).
  await new Response(new Request("http://127.0.0.1/").body).text();
  const { createGeneratedApp } = await import(pathToFileURL(join(BENCH_DIR, module)).href);
  const buildStart = performance.now();
  const app = createGeneratedApp(Number(routes));
  const buildMs = performance.now() - buildStart;

  const get = async () => {
    const response = await app.fetch(new Request("http://127.0.0.1/openapi.json"));
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`GET /openapi.json answered ${response.status}: ${text.slice(0, 200)}`);
    return text;
  };
  const firstStart = performance.now();
  const text = await get();
  const firstMs = performance.now() - firstStart;

  const repeats = [];
  const deadline = performance.now() + Number(budgetMs);
  while (repeats.length < Number(maxRepeats) && (repeats.length < 5 || performance.now() < deadline)) {
    const start = performance.now();
    await get();
    repeats.push(performance.now() - start);
  }

  const doc = JSON.parse(text);
  const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
  process.send({ type: "result", buildMs, firstMs, repeats, bytes: text.length, operations, openapi: doc.openapi });
} catch (err) {
  process.send({ type: "error", error: String(err?.stack ?? err) });
}
