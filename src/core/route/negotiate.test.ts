import { describe, expect, it } from "vitest";
import { type MediaOffer, negotiate } from "./negotiate";

const offer = (mediaType: string): MediaOffer => ({ mediaType, essence: mediaType.split(";")[0]!.toLowerCase() });
const json = offer("application/json");
const csv = offer("text/csv");
const plain = offer("text/plain; charset=utf-8");
const offers = [json, csv, plain];

const chosen = (accept: string | null) => negotiate(accept, offers)?.mediaType ?? null;

describe("negotiate: the media type an Accept header takes (RFC 9110 §12.5.1)", () => {
  it("takes the first offer without an Accept, or with an empty one", () => {
    expect(chosen(null)).toBe("application/json");
    expect(chosen("  ")).toBe("application/json");
  });

  it("prefers the highest q-value, whatever the order the client wrote", () => {
    expect(chosen("application/json;q=0.4, text/csv;q=0.9")).toBe("text/csv");
    expect(chosen("text/csv;q=0.5, application/json")).toBe("application/json");
  });

  it("prefers the more specific range at the same q-value, then the client's order", () => {
    expect(chosen("text/*, text/plain")).toBe("text/plain; charset=utf-8");
    expect(chosen("text/plain, text/csv")).toBe("text/plain; charset=utf-8");
    expect(chosen("text/csv, text/plain")).toBe("text/csv");
  });

  it("takes the first declared offer a wildcard matches", () => {
    expect(chosen("*/*")).toBe("application/json");
    expect(chosen("text/*")).toBe("text/csv");
  });

  it("keeps a type refused with q=0 out, even where a wildcard would take it", () => {
    expect(chosen("text/csv;q=0, text/*")).toBe("text/plain; charset=utf-8");
    expect(chosen("application/json;q=0, */*;q=0.1")).toBe("text/csv");
  });

  it("answers null when nothing offered is acceptable", () => {
    expect(chosen("image/png")).toBeNull();
    expect(chosen("text/csv;q=0, text/plain;q=0, application/json;q=0")).toBeNull();
  });

  it("compares media types without regard to case, and skips ranges it cannot read", () => {
    expect(chosen("TEXT/CSV")).toBe("text/csv");
    expect(chosen("garbage, /, text/, text/csv")).toBe("text/csv");
  });

  it("reads at most 64 ranges of a header, so a header of thousands costs no more than that", () => {
    const ignored = Array.from({ length: 64 }, () => "image/png").join(", ");
    expect(chosen(`${ignored}, text/csv`)).toBeNull();
    expect(chosen(`${Array.from({ length: 63 }, () => "image/png").join(", ")}, text/csv`)).toBe("text/csv");
  });
});
