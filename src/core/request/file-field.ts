import { z } from "zod";

export interface FileFieldOptions {
  /** Largest accepted file in bytes; a larger upload is refused while it streams in (413). */
  maxSize?: number;
  /** Accepted media types, e.g. `["image/png", "image/jpeg"]`, compared with the part's Content-Type. */
  types?: readonly string[];
  /** Description for the document. */
  description?: string;
}

/**
 * A file member of a `multipart/form-data` body: a `z.file()` with a size limit and accepted types,
 * documented as binary content and parsed to a `File`.
 *
 * @example
 * const Upload = z.object({ file: fileField({ maxSize: 512 * 1024, types: ["image/png", "application/pdf"] }) });
 */
export function fileField(options: FileFieldOptions = {}): z.ZodFile {
  let schema = z.file();
  const { maxSize, types, description } = options;
  if (maxSize !== undefined) {
    if (!Number.isFinite(maxSize) || maxSize < 0) throw new Error("fileField maxSize must be a non-negative number");
    schema = schema.max(maxSize, `File is larger than ${maxSize} bytes`);
  }
  if (types !== undefined) {
    if (types.length === 0) throw new Error("fileField types must name at least one media type");
    const accepted = types.join(", ");
    schema = schema.mime([...types], {
      error: (issue) => `File type "${String(issue.input) || "unknown"}" is not accepted: expected ${accepted}`,
    });
  }
  return description === undefined ? schema : schema.describe(description);
}
