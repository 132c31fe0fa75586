// Case 3, one fresh process: `node lib/cold-start-main.js <absolute app module URL> <routes>`.
// Times are from process start (performance.timeOrigin), so node's own boot is included alike for all.
process.on("disconnect", () => process.exit(0));
const [moduleUrl, routes] = process.argv.slice(2);

try {
  const { createGeneratedApp } = await import(moduleUrl);
  const app = createGeneratedApp(Number(routes));
  const readyMs = performance.now();
  const response = await app.fetch(new Request("http://127.0.0.1/g0/tasks/42"));
  await response.text();
  const firstResponseMs = performance.now();
  process.send({ type: "result", readyMs, firstResponseMs, status: response.status });
} catch (err) {
  process.send({ type: "error", error: String(err?.stack ?? err) });
}
