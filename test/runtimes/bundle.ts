import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Bundles a worker entry as Workers would run it: one ES module, specroute from this repo's source. */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [`${root}/${entry}`],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    write: false,
    logLevel: "silent",
    alias: { specroute: `${root}/src/index.ts` },
  });
  return result.outputFiles[0]!.text;
}
