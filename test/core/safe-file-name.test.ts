// Upload file names are the client's: a multipart part's `filename` reaches handle() as sent. safeFileName
// makes one fit to store or show; these hostile names are sent as a client would, in a real multipart body
// over HTTP, to both adapters.
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, contentMultipart, fileField, OpenAPIRoute, safeFileName } from "../../src";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";

afterAll(closeHttpHarnesses);

const BOUNDARY = "----specroute-names";

/** A multipart body with one file part whose Content-Disposition parameters are `disposition`, as bytes. */
function upload(disposition: string): RequestInit {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = encoder.encode(`hello\r\n--${BOUNDARY}--\r\n`);
  const body = new Uint8Array(head.length + tail.length);
  body.set(head);
  body.set(tail, head.length);
  return { method: "POST", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, body };
}

class Upload extends OpenAPIRoute {
  schema = {
    request: { body: contentMultipart(z.object({ file: fileField({ maxSize: 1024 }) })) },
    responses: { "200": { description: "The names", ...contentJson(z.object({ raw: z.string(), safe: z.string() })) } },
  };
  async handle() {
    const { body } = await this.getValidatedData();
    return { raw: body.file.name, safe: safeFileName(body.file.name) };
  }
}

const quoted = (name: string) => `filename="${name.replace(/["\\]/g, "\\$&")}"`;
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

const HOSTILE: Array<[string, string]> = [
  ["../../etc/passwd", "passwd"],
  ["..\\..\\Windows\\win.ini", "win.ini"],
  ["/etc/shadow", "shadow"],
  ["C:\\Users\\ada\\report.pdf", "report.pdf"],
  ["uploads/../../app.js", "app.js"],
  ["..", "file"],
  [".", "file"],
  ["...", "file"],
  ["dir/", "file"],
  [".htaccess", "htaccess"],
  ["CON", "_CON"],
  ["con.txt", "_con.txt"],
  ["LPT1.log", "_LPT1.log"],
  ["nul .tar.gz", "_nul .tar.gz"],
  ["console.txt", "console.txt"],
  ["a\u0000b.txt", "ab.txt"],
  ["\u001b[31mred.txt", "[31mred.txt"],
  ["bell\u0007\u007f\u0085.txt", "bell.txt"],
  ["invoice\u202Efdp.exe", "invoicefdp.exe"],
  ["\u200Bhidden\uFEFF.txt", "hidden.txt"],
  ['a<b>:"c|d?*.txt', "a_b___c_d__.txt"],
  ["report.pdf ", "report.pdf"],
  ["report.pdf.", "report.pdf"],
  ["  spaced  name.txt", "spaced  name.txt"],
  ["Grüße.txt", "Grüße.txt"],
  ["..／..／etc／passwd", "passwd"],
  ["..＼..＼boot.ini", "boot.ini"],
  ["a\u2215b\u2044c.txt", "a_b_c.txt"],
  ["COM²", "_COM2"],
  ["CONOUT$", "_CONOUT$"],
];

describe.each(httpHarnesses)("upload file names over HTTP ($name)", (harness) => {
  const app = harness.make();
  app.router.post("/upload", Upload);
  const send = async (disposition: string) => (await (await app.request("/upload", upload(disposition))).json()) as any;

  it.each(HOSTILE)("hands %j to handle() as sent; safeFileName makes it %j", async (sent, safe) => {
    const answer = await send(quoted(sent));
    expect(answer).toEqual({ raw: sent, safe });
  });

  it("bounds a long name to 255 UTF-8 bytes, keeping its extension and whole characters", async () => {
    for (const stem of ["x".repeat(1000), "é".repeat(300), "😀".repeat(100)]) {
      const { raw, safe } = await send(quoted(`${stem}.png`));
      expect(raw).toBe(`${stem}.png`);
      expect(utf8Bytes(safe)).toBeLessThanOrEqual(255);
      expect(utf8Bytes(safe)).toBeGreaterThan(240);
      expect(safe.endsWith(".png")).toBe(true);
      expect(stem.startsWith(safe.slice(0, -4))).toBe(true);
    }
  });

  it("decodes an RFC 8187 filename* when it is the only name, which safeFileName then cuts to its last segment", async () => {
    expect(await send("filename*=UTF-8''..%2F..%2Fetc%2Fpasswd")).toEqual({ raw: "../../etc/passwd", safe: "passwd" });
  });

  it("takes filename over filename* when both are sent, as the runtimes' own form readers do", async () => {
    // RFC 7578 §4.2: a multipart/form-data sender must not use filename*. A client sending both shows
    // `filename` to whatever inspects the request on the way (a proxy, a filter) and may mean the other.
    expect(await send(`filename="safe.txt"; filename*=UTF-8''..%2Fevil.sh`)).toEqual({
      raw: "safe.txt",
      safe: "safe.txt",
    });
    expect(await send(`filename*=UTF-8''..%2Fevil.sh; filename="safe.txt"`)).toEqual({
      raw: "safe.txt",
      safe: "safe.txt",
    });
  });
});

describe("safeFileName", () => {
  it("takes a fallback and a smaller bound", () => {
    expect(safeFileName("../", { fallback: "upload.bin" })).toBe("upload.bin");
    expect(safeFileName("photograph.jpeg", { maxBytes: 10 })).toBe("photo.jpeg");
    expect(safeFileName("a-very-long-extension.abcdefghijklmnopqrstuvwxyz", { maxBytes: 12 })).toBe("a-very-long-");
  });

  it("refuses a bound too small for any name, or a fallback that is not itself safe", () => {
    expect(() => safeFileName("a.txt", { maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => safeFileName("a.txt", { fallback: "../x" })).toThrow(/fallback/);
  });

  it("returns the same name for a safe one, so applying it twice changes nothing", () => {
    for (const [sent] of HOSTILE) {
      const once = safeFileName(sent);
      expect(safeFileName(once)).toBe(once);
    }
  });
});
