import { join } from "node:path";

const root = join(__dirname, "..");

/** What a bundle of an app holds: its code, and the files that gave it code with their bytes in it. */
export interface Bundle {
  code: string;
  /** Files that contributed code to the output (the bundler reads more than it keeps), by bytes. */
  bytes: Record<string, number>;
  /** The same files, listed. */
  files: string[];
}

/**
 * `contents` (TypeScript, importing `specroute` and its entries from this repository's src/) bundled as a
 * browser or Worker app bundles it: minified ES module, browser platform.
 */
export async function bundleOf(contents: string): Promise<Bundle> {
  const { build } = await import("esbuild");
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    alias: {
      specroute: join(root, "src/index.ts"),
      "specroute/client": join(root, "src/client/index.ts"),
      "specroute/drizzle": join(root, "src/drizzle/index.ts"),
      "specroute/mcp": join(root, "src/mcp/index.ts"),
    },
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  const bytes = Object.fromEntries(
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file, input]) => [file, input.bytesInOutput]),
  );
  return { code: result.outputFiles[0]!.text, bytes, files: Object.keys(bytes) };
}
