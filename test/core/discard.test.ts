import { describe, expect, it } from "vitest";
import { DISCARD_LIMIT, discardRest } from "../../src/core/request/body";

/** A body of `chunks` chunks of 1 MiB (one shared buffer), counting what was pulled and whether it was cancelled. */
function counted(chunks: number) {
  const chunk = new Uint8Array(1024 * 1024);
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled === chunks) return controller.close();
        seen.pulled++;
        controller.enqueue(chunk);
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { reader: stream.getReader(), seen };
}

describe("discardRest: the rest of a refused body", () => {
  it("is read to its end and dropped when it is within the limit", async () => {
    const { reader, seen } = counted(10);
    discardRest(reader);
    await expect.poll(() => seen.pulled).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.cancelled).toBe(false);
  });

  it("is cancelled once more than 16 MiB were dropped, never read further", async () => {
    expect(DISCARD_LIMIT).toBe(16 * 1024 * 1024);
    const { reader, seen } = counted(1000);
    discardRest(reader);
    await expect.poll(() => seen.cancelled).toBe(true);
    expect(seen.pulled).toBe(17);
  });

  it("ignores a body that fails while it is dropped", async () => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("connection gone"));
      },
    });
    discardRest(stream.getReader());
    // Nothing is thrown or left unhandled: vitest fails the run on an unhandled rejection.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
