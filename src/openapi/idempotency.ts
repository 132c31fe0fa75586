import type { IdempotencyPolicy } from "../core/ops/idempotency";
import { MAX_IDEMPOTENCY_KEY } from "../core/ops/idempotency";
import type { ResponseConfig } from "../core/schema-types";
import { ConflictException, InputValidationException, UnprocessableEntityException } from "../errors/exceptions";

type Responses = Record<string, ResponseConfig>;

/**
 * The `Idempotency-Key` header parameter of a route that takes one (draft-ietf-httpapi-idempotency-key-header).
 *
 * @example
 * idempotencyParameter(policy); // { name: "Idempotency-Key", in: "header", required: false, ... }
 */
export function idempotencyParameter(policy: IdempotencyPolicy): Record<string, unknown> {
  return {
    name: "Idempotency-Key",
    in: "header",
    required: policy.required,
    description: `Makes a retry safe: a retry with the same key and the same request gets the first answer (kept ${policy.expiresSeconds} s); the same key on another request is a 422, one still being processed a 409.`,
    schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY },
  };
}

/** A route's responses with the answers its `Idempotency-Key` may bring (400, 409, 422), where it declares none. */
export function withIdempotencyResponses(responses: Responses | undefined): Responses {
  const result: Responses = { ...(responses ?? { "200": { description: "Successful response" } }) };
  const [conflict] = Object.values(ConflictException.schema());
  const [unprocessable] = Object.values(UnprocessableEntityException.schema());
  const added: Responses = {
    ...InputValidationException.schema(),
    "409": { ...conflict!, description: "A request with this Idempotency-Key is still being processed" },
    "422": { ...unprocessable!, description: "This Idempotency-Key was used for another request" },
  };
  for (const [status, config] of Object.entries(added)) if (!(status in result)) result[status] = config;
  return result;
}
