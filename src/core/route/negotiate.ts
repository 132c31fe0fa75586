// Content negotiation (RFC 9110 §12.5.1): which of the media types a response declares the request's
// `Accept` takes, best first.

/** Turns what `handle()` returned into the bytes of one media type. */
export type Serializer = (data: unknown) => string | Uint8Array;

/** A media type an answer can come in. */
export interface MediaOffer {
  /** As declared in the response's `content`: the answer's Content-Type. */
  readonly mediaType: string;
  /** Lower-case `type/subtype`. */
  readonly essence: string;
}

/** One media type data can be written in, with what writes it. */
export interface Offer extends MediaOffer {
  readonly serialize: Serializer;
}

interface Range {
  type: string;
  subtype: string;
  q: number;
  order: number;
}

/** Most ranges read from one Accept header: a header longer than this is cut, not parsed without end. */
const MAX_RANGES = 64;

/**
 * The offer the request's `Accept` prefers: highest q-value first, then the most specific range, then
 * the order the client wrote; among the offers one range takes, the first declared. No `Accept` (or an
 * empty one) takes the first offer; null when nothing offered is acceptable.
 *
 * @example
 * negotiate("text/csv;q=0.5, application/json", offers) // the application/json offer
 */
export function negotiate<O extends MediaOffer>(accept: string | null, offers: readonly O[]): O | null {
  if (accept === null || accept.trim() === "") return offers[0] ?? null;
  const ranges = parseAccept(accept);
  // A type excluded with q=0 stays excluded even if a wildcard would take it.
  const refused = (offer: MediaOffer) => ranges.some((range) => range.q === 0 && exactly(range, offer));
  const preferred = ranges.filter((range) => range.q > 0).sort(byPreference);
  for (const range of preferred) {
    const offer = offers.find((candidate) => takes(range, candidate) && !refused(candidate));
    if (offer) return offer;
  }
  return null;
}

function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  for (const part of accept.split(",", MAX_RANGES)) {
    const [mediaRange = "", ...params] = part.split(";");
    const [type = "", subtype = ""] = mediaRange.trim().toLowerCase().split("/");
    if (type === "" || subtype === "") continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=").map((piece) => piece.trim());
      if (name?.toLowerCase() === "q") q = qValue(value);
    }
    ranges.push({ type, subtype, q, order: ranges.length });
  }
  return ranges;
}

/** A q-value as RFC 9110 writes it (0 to 1, three decimals at most); anything else counts as 0. */
function qValue(value: string | undefined): number {
  if (value === undefined || !/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value)) return 0;
  return Number(value);
}

function specificity(range: Range): number {
  return range.type === "*" ? 0 : range.subtype === "*" ? 1 : 2;
}

function byPreference(a: Range, b: Range): number {
  return b.q - a.q || specificity(b) - specificity(a) || a.order - b.order;
}

function takes(range: Range, offer: MediaOffer): boolean {
  const [type, subtype] = offer.essence.split("/");
  if (range.type === "*") return true;
  return range.type === type && (range.subtype === "*" || range.subtype === subtype);
}

function exactly(range: Range, offer: MediaOffer): boolean {
  return `${range.type}/${range.subtype}` === offer.essence;
}
