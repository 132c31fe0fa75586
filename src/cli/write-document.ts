import { mkdir, writeFile } from "node:fs/promises";
import { dirname, extname, resolve } from "node:path";
import type { OpenAPIDocument } from "../openapi/types";
import { toYaml } from "../openapi/yaml";
import { CliError, oneLine } from "./errors";

/** Formats the CLI writes a document in. */
export const DOCUMENT_FORMATS = ["json", "yaml"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/**
 * A document as text: indented JSON, or YAML as the router serves it; both end with a newline.
 *
 * @example
 * renderDocument(router.getGeneratedSchema(), "yaml"); // "openapi: 3.1.0\ninfo:\n..."
 */
export function renderDocument(doc: OpenAPIDocument, format: DocumentFormat): string {
  return format === "yaml" ? toYaml(doc) : `${JSON.stringify(doc, null, 2)}\n`;
}

/** The format a file name implies: YAML for `.yaml`/`.yml`, else JSON. */
export function formatForFile(file: string | undefined): DocumentFormat {
  const extension = file ? extname(file).toLowerCase() : "";
  return extension === ".yaml" || extension === ".yml" ? "yaml" : "json";
}

/** Writes text to a file (creating its directory) or, without one, to `stdout`. */
export async function writeDocument(
  text: string,
  target: { file?: string; cwd: string; stdout: { write(text: string): unknown } },
): Promise<void> {
  if (target.file === undefined) {
    target.stdout.write(text);
    return;
  }
  const path = resolve(target.cwd, target.file);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (err) {
    throw new CliError(`could not write ${target.file}: ${oneLine(err)}`);
  }
}
