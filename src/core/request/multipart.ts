import { type InputValidationException, invalidField, PayloadTooLargeException } from "../../errors/exceptions";
import { bodyTooLarge, concatBytes, discardRest, forbiddenProtoKey, type MultipartParts, readChunk } from "./body";

/** How much of a multipart body may be kept, decided per part as its headers arrive. */
export interface MultipartLimits {
  /** Largest whole body in bytes. */
  maxBodySize: number;
  /**
   * Largest content of a part in bytes (`Infinity` for no limit of its own), or `null` to drop the
   * part's content without keeping it.
   */
  partLimit(name: string, isFile: boolean): number | null;
}

/** One part: a text value, a `File`, or `undefined` for a part whose content was dropped. */
export interface MultipartEntry {
  name: string;
  value: string | File | undefined;
}

/** Longest header block of one part. */
const MAX_PART_HEADERS = 16 * 1024;

const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/**
 * Reads a `multipart/form-data` body as it streams in, never holding more than the limits allow: the
 * body is refused as soon as it passes `maxBodySize` (413) or a part passes its own limit (413
 * naming the field). Resolves to undefined for an empty body.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
  limits: MultipartLimits,
): Promise<MultipartEntry[] | undefined> {
  const boundary = boundaryOf(contentType);
  if (body === null) return undefined;
  const parser = new MultipartParser(boundary, limits);
  const reader = body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await readChunk(reader);
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBodySize) throw bodyTooLarge(limits.maxBodySize);
      if (parser.push(value)) {
        // The closing boundary arrived: whatever follows is epilogue, read and dropped.
        discardRest(reader);
        return parser.entries;
      }
    }
  } catch (err) {
    discardRest(reader);
    throw err;
  }
  if (size === 0) return undefined;
  throw malformed("Multipart body ended before its closing boundary");
}

/**
 * The parts as one multipart body delimited by `contentType`'s own boundary, so the request's
 * Content-Type still describes it; Files are referenced, not read. Dropped parts are left out.
 */
export function multipartBlob(parts: readonly MultipartEntry[], contentType: string): Blob {
  const boundary = boundaryOf(contentType);
  const chunks: BlobPart[] = [];
  for (const { name, value } of parts) {
    if (value === undefined) continue;
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"`;
    if (typeof value === "string") {
      chunks.push(encoder.encode(`${head}\r\n\r\n`), encoder.encode(value), "\r\n");
    } else {
      head += `; filename="${escapeName(value.name)}"\r\nContent-Type: ${value.type || "application/octet-stream"}`;
      chunks.push(encoder.encode(`${head}\r\n\r\n`), value, "\r\n");
    }
  }
  chunks.push(`--${boundary}--\r\n`);
  return new Blob(chunks, { type: contentType });
}

/** The parts read, as the handler's request reads them again (`requestReadingAgain`): rebuilt when asked. */
export function partsReadAgain(parts: readonly MultipartEntry[], contentType: string): MultipartParts {
  return { blob: () => multipartBlob(parts, contentType), formData: () => multipartFormData(parts) };
}

/** The parts as FormData, dropped parts left out. */
function multipartFormData(parts: readonly MultipartEntry[]): FormData {
  const form = new FormData();
  for (const { name, value } of parts) if (value !== undefined) form.append(name, value);
  return form;
}

/** Quotes, CR and LF in a name are percent-encoded, as browsers write them. */
function escapeName(name: string): string {
  return name.replace(/["\r\n]/g, (c) => (c === '"' ? "%22" : c === "\r" ? "%0D" : "%0A"));
}

/** The `boundary` parameter of a multipart Content-Type. */
export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw malformed('Content-Type multipart/form-data needs a "boundary" parameter of 1 to 70 characters');
  return boundary;
}

interface OpenPart {
  name: string;
  filename: string | undefined;
  type: string | undefined;
  /** Bytes allowed, or null when the content is dropped. */
  limit: number | null;
  chunks: Uint8Array[];
  size: number;
}

type State = "preamble" | "boundary-line" | "headers" | "content";

/** A push parser: fed chunks in order, it collects the parts; `push` returns true once the body is complete. */
class MultipartParser {
  readonly entries: MultipartEntry[] = [];
  /** `CRLF--boundary`: every delimiter but the first, which the leading CRLF below makes uniform. */
  private readonly delimiter: Uint8Array;
  private readonly skip: Int32Array;
  private buffer: Uint8Array = new Uint8Array([13, 10]);
  private state: State = "preamble";
  private part: OpenPart | null = null;

  constructor(
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.delimiter = encoder.encode(`\r\n--${boundary}`);
    this.skip = skipTable(this.delimiter);
  }

  push(chunk: Uint8Array): boolean {
    this.buffer = concat(this.buffer, chunk);
    for (;;) {
      switch (this.state) {
        case "preamble": {
          const at = search(this.buffer, this.delimiter, this.skip);
          if (at < 0) {
            this.keepTail();
            return false;
          }
          this.buffer = this.buffer.subarray(at + this.delimiter.length);
          this.state = "boundary-line";
          break;
        }
        case "boundary-line": {
          if (this.buffer.length < 2) return false;
          if (this.buffer[0] === 45 && this.buffer[1] === 45) return true; // "--": the closing delimiter
          const end = indexOfCrlf(this.buffer, 0);
          if (end < 0) {
            if (this.buffer.length > 256) throw malformed("Malformed multipart boundary line");
            return false;
          }
          // Only transport padding (spaces and tabs) may follow a boundary on its line.
          for (let i = 0; i < end; i++) {
            if (this.buffer[i] !== 32 && this.buffer[i] !== 9) throw malformed("Malformed multipart boundary line");
          }
          this.buffer = this.buffer.subarray(end + 2);
          this.state = "headers";
          break;
        }
        case "headers": {
          const end = this.buffer[0] === 13 && this.buffer[1] === 10 ? 0 : indexOfHeaderEnd(this.buffer);
          if (end < 0) {
            if (this.buffer.length > MAX_PART_HEADERS) throw malformed("Multipart part headers are too large");
            return false;
          }
          this.part = this.openPart(lenient.decode(this.buffer.subarray(0, end)));
          this.buffer = this.buffer.subarray(end === 0 ? 2 : end + 4);
          this.state = "content";
          break;
        }
        case "content": {
          const at = search(this.buffer, this.delimiter, this.skip);
          if (at < 0) {
            const safe = this.buffer.length - (this.delimiter.length - 1);
            if (safe > 0) {
              this.append(this.buffer.subarray(0, safe));
              this.buffer = this.buffer.subarray(safe);
            }
            return false;
          }
          this.append(this.buffer.subarray(0, at));
          this.closePart();
          this.buffer = this.buffer.subarray(at + this.delimiter.length);
          this.state = "boundary-line";
          break;
        }
      }
    }
  }

  /** Keeps only the bytes that could still begin a delimiter. */
  private keepTail(): void {
    const keep = this.delimiter.length - 1;
    if (this.buffer.length > keep) this.buffer = this.buffer.subarray(this.buffer.length - keep);
  }

  private openPart(headerText: string): OpenPart {
    let disposition: Map<string, string> | undefined;
    let type: string | undefined;
    for (const line of headerText.split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const header = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (header === "content-disposition") disposition = parseDisposition(value);
      else if (header === "content-type") type = value;
    }
    const name = disposition?.get("name");
    if (disposition?.get("") !== "form-data" || name === undefined) {
      throw malformed('Every multipart part needs a "Content-Disposition: form-data; name=..." header');
    }
    if (name === "__proto__") throw forbiddenProtoKey();
    // RFC 7578 §4.2: senders must not use filename*. When both come, `filename` is what a proxy or filter on
    // the way saw, and what the runtimes' own form readers keep; filename* alone is still decoded.
    const filename = disposition.get("filename") ?? disposition.get("filename*");
    const limit = this.limits.partLimit(name, filename !== undefined);
    return { name, filename, type, limit, chunks: [], size: 0 };
  }

  private append(bytes: Uint8Array): void {
    const part = this.part!;
    if (part.limit === null || bytes.length === 0) return;
    part.size += bytes.length;
    if (part.size > part.limit) {
      throw new PayloadTooLargeException(
        `${part.filename === undefined ? "Field" : "File"} "${part.name}" is larger than its limit of ${part.limit} bytes`,
      );
    }
    part.chunks.push(bytes);
  }

  private closePart(): void {
    const { name, filename, type, limit, chunks, size } = this.part!;
    this.part = null;
    if (limit === null) {
      this.entries.push({ name, value: undefined });
    } else if (filename !== undefined) {
      // An empty file input is sent as a part with no file name and no content: nothing was chosen.
      if (filename === "" && size === 0) return;
      // Stream chunks are views of plain ArrayBuffers (never shared ones), which is what File takes.
      const parts = chunks as Uint8Array<ArrayBuffer>[];
      this.entries.push({ name, value: partFile(parts, filename, type ?? "application/octet-stream") });
    } else {
      try {
        this.entries.push({ name, value: utf8.decode(concatBytes(chunks, size)) });
      } catch {
        throw invalidField(`Field "${name}" is not valid UTF-8`, ["body", name]);
      }
    }
  }
}

/** `form-data; name="a"; filename="b.png"` → { "": "form-data", name: "a", filename: "b.png" }. */
function parseDisposition(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const semicolon = value.indexOf(";");
  params.set("", (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase());
  let i = semicolon < 0 ? value.length : semicolon + 1;
  while (i < value.length) {
    const eq = value.indexOf("=", i);
    if (eq < 0) break;
    const key = value.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (value[j] === " " || value[j] === "\t") j++;
    let param: string;
    if (value[j] === '"') {
      // A quoted-string: backslash escapes the next character (curl writes \" inside names).
      param = "";
      j++;
      while (j < value.length && value[j] !== '"') {
        if (value[j] === "\\" && j + 1 < value.length) j++;
        param += value[j];
        j++;
      }
      param = unescapeQuoted(param);
      const next = value.indexOf(";", j);
      i = next < 0 ? value.length : next + 1;
    } else {
      const next = value.indexOf(";", j);
      param = value.slice(j, next < 0 ? value.length : next).trim();
      i = next < 0 ? value.length : next + 1;
    }
    if (key === "filename*") {
      const decoded = decodeExtValue(param);
      if (decoded !== undefined) params.set(key, decoded);
    } else if (!params.has(key)) {
      params.set(key, param);
    }
  }
  return params;
}

/**
 * A quoted name or file name with HTML's escapes undone (`%0A`, `%0D`, `%22`, as browsers and `escapeName`
 * write LF, CR and `"`), in the order the platforms' own form readers undo them (undici, the WHATWG
 * multipart/form-data parser), so a field is found under the name the form gave it.
 */
function unescapeQuoted(param: string): string {
  if (!param.includes("%")) return param;
  return param.replace(/%0A/gi, "\n").replace(/%0D/gi, "\r").replace(/%22/g, '"');
}

/** RFC 8187 `UTF-8''caf%C3%A9.txt`; undefined when it is not that. */
function decodeExtValue(value: string): string | undefined {
  const match = /^utf-8'[^']*'(.*)$/i.exec(value);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/** Boyer-Moore-Horspool shifts for `needle`. */
function skipTable(needle: Uint8Array): Int32Array {
  const table = new Int32Array(256).fill(needle.length);
  for (let i = 0; i < needle.length - 1; i++) table[needle[i]!] = needle.length - 1 - i;
  return table;
}

function search(haystack: Uint8Array, needle: Uint8Array, skip: Int32Array): number {
  const last = needle.length - 1;
  let i = 0;
  while (i + last < haystack.length) {
    let j = last;
    while (j >= 0 && haystack[i + j] === needle[j]) j--;
    if (j < 0) return i;
    i += skip[haystack[i + last]!]!;
  }
  return -1;
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) if (bytes[i] === 13 && bytes[i + 1] === 10) return i;
  return -1;
}

function indexOfHeaderEnd(bytes: Uint8Array): number {
  for (let i = indexOfCrlf(bytes, 0); i >= 0; i = indexOfCrlf(bytes, i + 2)) {
    if (bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
    if (i + 3 >= bytes.length) return -1;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function malformed(message: string): InputValidationException {
  return invalidField(message, ["body"]);
}

/**
 * A file part as a `File` whose `type` is the part's Content-Type, as fileField's accepted types are
 * compared with it: Bun's File adds `;charset=utf-8` to a text type, which would refuse a `text/plain`
 * upload to a field accepting `text/plain`.
 */
function partFile(parts: Uint8Array<ArrayBuffer>[], filename: string, type: string): File {
  const file = new File(parts, filename, { type });
  const sent = type.toLowerCase();
  // Only where the runtime added parameters: a type File refuses (not printable ASCII) stays "".
  if (file.type !== sent && file.type.startsWith(sent)) {
    Object.defineProperty(file, "type", { value: sent, enumerable: true });
  }
  return file;
}
