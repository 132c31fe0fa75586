import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { CliError } from "./errors";

const run = promisify(execFile);

/**
 * Where the running specroute came from, which decides how a project `init` writes depends on it:
 * - `published`: installed from a registry, so the project pins the same version;
 * - `checkout`: the repository's source (run through tsx), built and packed for the project;
 * - `build`: any other install (a tarball, a `file:` link, an unpublished version), packed as it is.
 */
export type PackageSource =
  | { kind: "published"; root: string; version: string }
  | { kind: "checkout"; root: string; version: string }
  | { kind: "build"; root: string; version: string };

/**
 * How the package at `root` (the folder holding its package.json and templates/) was installed. A
 * published install is one npm's lockfile of the surrounding `node_modules` (`.package-lock.json`)
 * records as resolved from a registry URL; without that record it cannot be told from an unpublished
 * build, and a tarball of it still installs.
 */
export function packageSource(root: string): PackageSource {
  const version: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  if (existsSync(join(root, "src", "cli", "init.ts"))) return { kind: "checkout", root, version };
  return { kind: resolvedFromRegistry(root) ? "published" : "build", root, version };
}

/** Whether the nearest `node_modules/.package-lock.json` above `root` says it came from a registry. */
function resolvedFromRegistry(root: string): boolean {
  for (let dir = dirname(root); dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") continue;
    const lockfile = join(dir, ".package-lock.json");
    if (!existsSync(lockfile)) return false;
    const packages = JSON.parse(readFileSync(lockfile, "utf8")).packages ?? {};
    const key = relative(dirname(dir), root).split(sep).join("/");
    return /^https?:\/\//.test(packages[key]?.resolved ?? "");
  }
  return false;
}

/**
 * Packs the package into `destination` as `npm pack` would publish it and returns the tarball's file
 * name. A checkout is built first (tsup into a stage of its own, so the checkout's `dist/` is left as it is).
 *
 * @example
 * const tarball = await packPackage(packageSource(root), "/tmp/my-api/vendor"); // "specroute-0.1.0.tgz"
 */
export async function packPackage(source: PackageSource, destination: string): Promise<string> {
  mkdirSync(destination, { recursive: true });
  if (source.kind !== "checkout") return npmPack(source.root, destination);
  const stage = mkdtempSync(join(destination, ".stage-"));
  try {
    const listed = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: source.root });
    for (const { path } of JSON.parse(listed.stdout)[0].files as Array<{ path: string }>) {
      if (!path.startsWith("dist/")) cpSync(join(source.root, path), join(stage, path), { recursive: true });
    }
    const tsup = join(source.root, "node_modules", ".bin", "tsup");
    if (!existsSync(tsup)) throw new CliError(`cannot build specroute at ${source.root}: run npm ci there first`);
    await run(tsup, ["--out-dir", join(stage, "dist")], { cwd: source.root, maxBuffer: 64 * 1024 * 1024 });
    return await npmPack(stage, destination);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function npmPack(dir: string, destination: string): Promise<string> {
  const packed = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], {
    cwd: dir,
  });
  return JSON.parse(packed.stdout)[0].filename;
}
