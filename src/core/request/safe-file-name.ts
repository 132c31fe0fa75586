export interface SafeFileNameOptions {
  /** Longest name returned, in UTF-8 bytes. Default 255, what most file systems take. */
  maxBytes?: number;
  /** The name returned when nothing usable is left (`..`, `/`, only control characters). Default `"file"`. */
  fallback?: string;
}

// Control and format characters (NUL, escape sequences, bidi overrides that make "exe.txt" read as "txt.exe",
// zero-width characters), lone surrogates, and the line and paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;
// Characters Windows refuses in a name, and the slashes NFKC leaves alone (division, fraction and big
// solidus) that a Windows code page's "best fit" turns into a separator.
const RESERVED_CHARACTERS = /[<>:"|?*\u2044\u2215\u29f8\u29f9]/g;
// Devices Windows opens instead of a file of that name, whatever follows the first dot (NFKC made "COM²" "COM2").
const DEVICE_NAME = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9]|conin\$|conout\$|clock\$)$/i;
// Leading dots make hidden files and `..`; Windows drops trailing dots and spaces.
const EDGES = /^[\s.]+|[\s.]+$/g;
// An extension is kept through a cut when it is this short (".tar.gz" keeps ".gz").
const MAX_EXTENSION_BYTES = 16;

const encoder = new TextEncoder();

/**
 * A file name that is safe to store a file under or to show: an upload's `File.name` is whatever the
 * client sent (`../../etc/passwd`, `CON`, `invoice\u202Efdp.exe`). Normalizes it (NFKC, so fullwidth
 * slashes are slashes), keeps the last path segment (`/` and `\` both separate), removes control and format
 * characters, replaces `<>:"|?*` and slash lookalikes with `_`, trims dots and
 * spaces at both ends, prefixes Windows device names (`CON.txt` → `_CON.txt`), and cuts the name to
 * `maxBytes` UTF-8 bytes on a character boundary, keeping a short extension. Applying it twice changes
 * nothing. Two clients can still send the same name: store files under a key of your own, and keep this
 * name for showing or `Content-Disposition`.
 *
 * @example
 * safeFileName("../../etc/passwd"); // "passwd"
 * safeFileName("..", { fallback: "upload.bin" }); // "upload.bin"
 * const key = crypto.randomUUID(); // what the file is stored under; the name is kept beside it, for showing
 * const name = safeFileName(body.file.name, { fallback: "upload.bin" });
 */
export function safeFileName(name: string, options: SafeFileNameOptions = {}): string {
  const { maxBytes = 255, fallback = "file" } = options;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new Error(`maxBytes must be a positive integer, not ${maxBytes}`);
  }
  if (fallback === "" || clean(fallback, maxBytes) !== fallback) {
    throw new Error(`fallback must be a safe file name of at most ${maxBytes} bytes, not ${JSON.stringify(fallback)}`);
  }
  return clean(name, maxBytes) || fallback;
}

function clean(name: string, maxBytes: number): string {
  // NFKC first: fullwidth "／" and "＼" become the separators they stand for, and "．" a dot.
  const segments = name.normalize("NFKC").replace(INVISIBLE, "").split(/[/\\]/);
  const safe = cut(segments[segments.length - 1]!.replace(RESERVED_CHARACTERS, "_").replace(EDGES, ""), maxBytes);
  // Checked after the cut, which could leave one ("CONSOLE" cut to 3 bytes); "_" then starts the name.
  return DEVICE_NAME.test(safe.split(".")[0]!.trimEnd()) ? cut(`_${safe}`, maxBytes) : safe;
}

/** `name` within `maxBytes` UTF-8 bytes, cut between characters, its extension kept when short. */
function cut(name: string, maxBytes: number): string {
  if (encoder.encode(name).length <= maxBytes) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot) : "";
  const extensionBytes = encoder.encode(extension).length;
  const keep = extension !== "" && extensionBytes <= MAX_EXTENSION_BYTES && extensionBytes < maxBytes;
  const stem = keep ? name.slice(0, dot) : name;
  const budget = keep ? maxBytes - extensionBytes : maxBytes;
  let kept = "";
  let bytes = 0;
  for (const character of stem) {
    const size = encoder.encode(character).length;
    if (bytes + size > budget) break;
    kept += character;
    bytes += size;
  }
  return (kept.replace(EDGES, "") + (keep ? extension : "")).replace(EDGES, "");
}
