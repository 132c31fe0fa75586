// What a new user installs: specroute built and packed as `npm pack` makes it, and the packages an app
// needs beside it, linked from this repository's node_modules so nothing is downloaded.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { packageSource, packPackage as packSpecroute } from "../src/cli/package-source";

export const root = join(__dirname, "..");
export const run = promisify(execFile);

/**
 * Builds the package into a stage of its own (the repository's dist/ is left alone), packs it into `dir`
 * as `specroute init` packs a checkout, and returns the directory the tarball unpacks to.
 */
export async function packPackage(dir: string): Promise<string> {
  const tarball = await packSpecroute(packageSource(root), dir);
  await run("tar", ["-xzf", join(dir, tarball), "-C", dir]);
  return join(dir, "package");
}

/**
 * Installs the unpacked package into `app/node_modules/specroute` (a copy, so its imports resolve from the
 * app's node_modules) and links each of `names` there from this repository's node_modules; the bins of
 * all of them go to node_modules/.bin, as npm puts them.
 */
export function installInto(app: string, packageDir: string, names: string[]): void {
  const modules = join(app, "node_modules");
  mkdirSync(join(modules, ".bin"), { recursive: true });
  cpSync(packageDir, join(modules, "specroute"), { recursive: true });
  linkBins(modules, "specroute");
  for (const name of names) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, "node_modules", name), join(modules, name));
    linkBins(modules, name);
  }
}

function linkBins(modules: string, name: string): void {
  const { bin } = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8"));
  const bins: Record<string, string> = typeof bin === "string" ? { [name.split("/").pop()!]: bin } : (bin ?? {});
  for (const [command, file] of Object.entries(bins)) {
    // The first package to name a command keeps it, as the app's own dependencies would.
    if (!existsSync(join(modules, ".bin", command)))
      symlinkSync(join(modules, name, file), join(modules, ".bin", command));
  }
}

/** The version of `name` this repository installed (what package-lock.json pins). */
export function installedVersion(name: string): string {
  return JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version;
}
