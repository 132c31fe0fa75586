// Case 4: bundle size of a minimal Workers-style app (the three task endpoints, `export default app`),
// bundled by esbuild (minified, ESM, browser platform with the workerd/worker conditions), raw and gzip,
// plus the framework's own share: minified bytes not from the peers every app bundles (zod, hono,
// itty-router) nor from the app's code.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { BENCH_DIR } from "../frameworks.js";

const SHARED = /(^|\/)node_modules\/(zod|hono|itty-router)\/|^apps\/|^<stdin>$/;

export async function runBundle({ frameworks, log }) {
  const results = {};
  for (const { id, module } of frameworks) {
    const output = await build({
      stdin: {
        contents: `import { createWorkerApp } from "./${module}";\nexport default createWorkerApp();\n`,
        resolveDir: BENCH_DIR,
        sourcefile: `worker-${id}.js`,
      },
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      conditions: ["workerd", "worker", "browser"],
      target: "es2022",
      write: false,
      logLevel: "silent",
      metafile: true,
      absWorkingDir: BENCH_DIR,
    });
    const code = output.outputFiles[0].contents;
    const [{ inputs }] = Object.values(output.metafile.outputs);
    let ownBytes = 0;
    for (const [path, { bytesInOutput }] of Object.entries(inputs)) if (!SHARED.test(path)) ownBytes += bytesInOutput;
    results[id] = { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, ownBytes };
    log(`bundle | ${id}: ${results[id].bytes} B minified, ${results[id].gzipBytes} B gzip, ${ownBytes} B own code`);
  }
  return { results };
}
