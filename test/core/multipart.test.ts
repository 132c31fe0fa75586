import { describe, expect, it } from "vitest";
import { type MultipartLimits, readMultipart as readStream } from "../../src/core/request/multipart";

/** Reads a request's multipart body as specroute's body reader does: from its stream. */
const readMultipart = (request: Request, contentType: string, limits: MultipartLimits) =>
  readStream(request.body, contentType, limits);

const BOUNDARY = "----specroute-boundary";
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const encoder = new TextEncoder();
const unlimited: MultipartLimits = { maxBodySize: 1 << 20, partLimit: () => Number.POSITIVE_INFINITY };

function body(parts: Array<{ headers: string[]; content: string | Uint8Array }>, preamble = ""): Uint8Array {
  const chunks: Uint8Array[] = [encoder.encode(preamble)];
  for (const part of parts) {
    chunks.push(encoder.encode(`--${BOUNDARY}\r\n${part.headers.join("\r\n")}\r\n\r\n`));
    chunks.push(typeof part.content === "string" ? encoder.encode(part.content) : part.content);
    chunks.push(encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${BOUNDARY}--\r\nepilogue`));
  const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** A request whose body arrives in chunks of `size` bytes, counting how many were pulled. */
function streamed(bytes: Uint8Array, size: number, contentType = TYPE) {
  let offset = 0;
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        counter.pulled++;
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": contentType },
    body: stream,
    duplex: "half",
  } as RequestInit);
  return { request, counter };
}

const sample = body(
  [
    { headers: ['Content-Disposition: form-data; name="title"'], content: "Grüße\r\n--not-a-boundary" },
    {
      headers: ['Content-Disposition: form-data; name="file"; filename="a \\"b\\".png"', "Content-Type: image/png"],
      content: new Uint8Array([0, 13, 10, 45, 45, 255, 1]),
    },
    { headers: ['Content-Disposition: form-data; name="tag"'], content: "x" },
    { headers: ['Content-Disposition: form-data; name="tag"'], content: "" },
  ],
  "preamble to ignore\r\n",
);

describe("readMultipart", () => {
  for (const size of [1, 2, 3, 7, 64, sample.length]) {
    it(`parses the same parts whatever the chunk size (${size} bytes)`, async () => {
      const entries = await readMultipart(streamed(sample, size).request, TYPE, unlimited);
      expect(entries!.map((entry) => entry.name)).toEqual(["title", "file", "tag", "tag"]);
      expect(entries![0]!.value).toBe("Grüße\r\n--not-a-boundary");
      const file = entries![1]!.value as File;
      expect(file).toBeInstanceOf(File);
      expect(file.name).toBe('a "b".png');
      expect(file.type).toBe("image/png");
      expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([0, 13, 10, 45, 45, 255, 1]);
      expect(entries!.slice(2).map((entry) => entry.value)).toEqual(["x", ""]);
    });
  }

  it("reads a quoted boundary and an RFC 8187 file name", async () => {
    const bytes = body([
      { headers: ["Content-Disposition: form-data; name=doc; filename*=UTF-8''caf%C3%A9.txt"], content: "hi" },
    ]);
    const entries = await readMultipart(
      streamed(bytes, 5).request,
      `multipart/form-data; boundary="${BOUNDARY}"`,
      unlimited,
    );
    expect((entries![0]!.value as File).name).toBe("café.txt");
    expect((entries![0]!.value as File).type).toBe("application/octet-stream");
  });

  it("undoes the %0A, %0D and %22 a sender writes in quoted names, as the platforms' form readers do (a token is kept as sent)", async () => {
    const bytes = body([
      {
        headers: ['Content-Disposition: form-data; name="a%22b%0d%0Ac"; filename="we%22ird%0D%0aname%25.txt"'],
        content: "hi",
      },
      { headers: ["Content-Disposition: form-data; name=tok%22en"], content: "v" },
    ]);
    const entries = await readMultipart(streamed(bytes, 5).request, TYPE, unlimited);
    expect(entries!.map((entry) => entry.name)).toEqual(['a"b\r\nc', "tok%22en"]);
    expect((entries![0]!.value as File).name).toBe('we"ird\r\nname%25.txt');
  });

  it("refuses as soon as a part passes its limit, naming the field, then drops the rest", async () => {
    const big = body([
      { headers: ['Content-Disposition: form-data; name="avatar"; filename="big.bin"'], content: "x".repeat(100_000) },
    ]);
    const { request, counter } = streamed(big, 1000);
    const limits: MultipartLimits = { maxBodySize: 1 << 20, partLimit: (name) => (name === "avatar" ? 2000 : 0) };
    const refused = await readMultipart(request, TYPE, limits).catch((err) => ({ err, pulled: counter.pulled }));
    expect(refused).toMatchObject({
      err: { status: 413, message: 'File "avatar" is larger than its limit of 2000 bytes' },
    });
    expect((refused as { pulled: number }).pulled).toBeLessThan(10);
    // The rest is read and dropped, so a client still sending can finish and read the answer.
    await expect.poll(() => counter.pulled).toBe(Math.ceil(big.length / 1000));
  });

  it("refuses as soon as the body passes maxBodySize, then drops the rest", async () => {
    const big = body([{ headers: ['Content-Disposition: form-data; name="a"'], content: "x".repeat(100_000) }]);
    const { request, counter } = streamed(big, 1000);
    const refused = await readMultipart(request, TYPE, { ...unlimited, maxBodySize: 5000 }).catch((err) => ({
      err,
      pulled: counter.pulled,
    }));
    expect(refused).toMatchObject({ err: { status: 413 } });
    expect((refused as { pulled: number }).pulled).toBeLessThanOrEqual(8);
    await expect.poll(() => counter.pulled).toBe(Math.ceil(big.length / 1000));
  });

  it("drops the content of parts the limits say not to keep", async () => {
    const bytes = body([
      { headers: ['Content-Disposition: form-data; name="junk"; filename="x.bin"'], content: "x".repeat(5000) },
      { headers: ['Content-Disposition: form-data; name="keep"'], content: "yes" },
    ]);
    const limits: MultipartLimits = { maxBodySize: 1 << 20, partLimit: (name) => (name === "junk" ? null : 100) };
    const entries = await readMultipart(streamed(bytes, 100).request, TYPE, limits);
    expect(entries).toEqual([
      { name: "junk", value: undefined },
      { name: "keep", value: "yes" },
    ]);
  });

  it("skips an empty file input (no file name, no content)", async () => {
    const bytes = body([{ headers: ['Content-Disposition: form-data; name="file"; filename=""'], content: "" }]);
    expect(await readMultipart(streamed(bytes, 10).request, TYPE, unlimited)).toEqual([]);
  });

  it("answers an empty body with undefined", async () => {
    expect(await readMultipart(streamed(new Uint8Array(0), 10).request, TYPE, unlimited)).toBeUndefined();
  });

  const malformed: Array<[string, string, string]> = [
    ["a missing boundary parameter", "", "multipart/form-data"],
    [
      "a body cut before its closing boundary",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nabc`,
      TYPE,
    ],
    ["a part without a name", `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nabc\r\n--${BOUNDARY}--`, TYPE],
    ["garbage after a boundary", `--${BOUNDARY}garbage\r\n\r\n--${BOUNDARY}--`, TYPE],
    [
      "a field that is not UTF-8",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n\xff\r\n--${BOUNDARY}--`,
      TYPE,
    ],
    [
      "a __proto__ field",
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\n{}\r\n--${BOUNDARY}--`,
      TYPE,
    ],
  ];
  for (const [what, text, type] of malformed) {
    it(`answers 400 for ${what}`, async () => {
      const bytes = Uint8Array.from(text, (char) => char.charCodeAt(0));
      await expect(readMultipart(streamed(bytes, 7, type).request, type, unlimited)).rejects.toMatchObject({
        status: 400,
      });
    });
  }

  it("answers 400 for part headers that never end", async () => {
    const text = `--${BOUNDARY}\r\nX-Long: ${"a".repeat(40_000)}`;
    await expect(readMultipart(streamed(encoder.encode(text), 1000).request, TYPE, unlimited)).rejects.toMatchObject({
      status: 400,
      message: "Multipart part headers are too large",
    });
  });
});
