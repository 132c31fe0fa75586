/**
 * A Response Object as a route's schema declares it, as far as a policy adding to a route's document
 * reads it: what `rateLimit()` and `idempotency()` add keeps the rest of each entry as it is.
 */
export interface DocumentedResponse {
  description: string;
  headers?: unknown;
}

/** A route's responses by status; undefined when the schema declares none (documented as one 200). */
export type DocumentedResponses<R extends DocumentedResponse> = Record<string, R>;

/** The route's responses, or the one 200 the document writes for a route that declares none. */
export function responsesOrDefault<R extends DocumentedResponse>(
  responses: DocumentedResponses<R> | undefined,
): DocumentedResponses<R> {
  // A plain Response Object, which the document reads as it reads a route's own.
  return responses ?? ({ "200": { description: "Successful response" } } as unknown as DocumentedResponses<R>);
}
