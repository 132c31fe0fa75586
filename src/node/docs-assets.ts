import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { DocsAssetsOption } from "../adapters/options";
import type { DocsAssetFile } from "../docs-ui";

/**
 * Serves the docs pages' scripts and styles from the installed npm packages (`swagger-ui-dist`,
 * `redoc`, `@scalar/api-reference`), so the pages work offline and under a strict CSP.
 * Install the packages of the pages you use.
 *
 * @example
 * import { nodeDocsAssets } from "specroute/node";
 * fromHono(app, { docsAssets: nodeDocsAssets() });
 */
export function nodeDocsAssets(baseUrl = "/docs-assets", from: string = process.cwd()): DocsAssetsOption {
  // Resolve packages as the application itself would, from its own directory.
  const require = createRequire(join(from, "package.json"));
  return {
    kind: "self-hosted",
    baseUrl,
    async load(asset: DocsAssetFile) {
      const root = packageRoot(require, asset.package);
      if (!root) {
        console.error(
          `[specroute] docs asset ${asset.file} needs the npm package "${asset.package}": npm install ${asset.package}`,
        );
        return null;
      }
      return new Uint8Array(await readFile(join(root, asset.path)));
    },
  };
}

/** The directory of an installed package; its package.json may not be exported, so it is found by path. */
function packageRoot(require: NodeJS.Require, name: string): string | null {
  for (const dir of require.resolve.paths(name) ?? []) {
    if (existsSync(join(dir, name, "package.json"))) return join(dir, name);
  }
  return null;
}
