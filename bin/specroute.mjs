#!/usr/bin/env node
// Runs the built CLI; inside the specroute repository without a build, runs its source through tsx.
import { existsSync } from "node:fs";

const built = new URL("../dist/cli.js", import.meta.url);
const source = new URL("../src/cli/main.ts", import.meta.url);

async function loadCli() {
  if (existsSync(built)) return import(built.href);
  if (!existsSync(source)) throw new Error("dist/cli.js is missing: reinstall specroute");
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    throw new Error("dist/cli.js is missing: run `npm run build`, or install tsx to run the CLI from source");
  }
  return tsx.tsImport(source.href, import.meta.url);
}

try {
  const cli = await loadCli();
  await cli.run(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`specroute: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
