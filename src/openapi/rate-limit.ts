import type { RateLimitPolicy } from "../core/ops/rate-limit";
import type { ResponseConfig } from "../core/schema-types";
import { TooManyRequestsException } from "../errors/exceptions";
import { seam } from "../schema";

type Responses = Record<string, ResponseConfig>;

/** The headers every answer of a limited route carries (draft-ietf-httpapi-ratelimit-headers). */
function rateLimitHeaders(policy: RateLimitPolicy): Record<string, unknown> {
  return {
    "RateLimit-Policy": {
      description: `The quota policy: \`${policy.policyHeader}\` (${policy.limit} requests per ${policy.windowSeconds} s)`,
      schema: { type: "string" },
    },
    RateLimit: {
      description: `What is left of the quota: \`"${policy.name}";r=<remaining>;t=<seconds to reset>\`, when the store counts it`,
      schema: { type: "string" },
    },
  };
}

/**
 * A limited route's responses: each written one (not a shared `$ref`, nor described by a zod headers
 * object) with the RateLimit headers, and the 429 with `Retry-After` added.
 *
 * @example
 * withRateLimitResponses({ "200": { description: "OK" } }, policy); // 200 with RateLimit headers, and 429
 */
export function withRateLimitResponses(responses: Responses | undefined, policy: RateLimitPolicy): Responses {
  const headers = rateLimitHeaders(policy);
  const result: Responses = {};
  for (const [status, config] of Object.entries(responses ?? { "200": { description: "Successful response" } })) {
    const plain = !seam.isSchema(config.headers) && !Object.isFrozen(config);
    result[status] = plain ? { ...config, headers: { ...headers, ...(config.headers as object | undefined) } } : config;
  }
  if (!("429" in result)) {
    const [entry] = Object.values(TooManyRequestsException.schema());
    result["429"] = {
      ...entry!,
      description: `Over the rate limit "${policy.name}": ${policy.limit} requests per ${policy.windowSeconds} s`,
      headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } }, ...headers },
    };
  }
  return result;
}
