/** The adapter suites every runtime of the matrix runs: in-process, then over HTTP on its own server. */
export const ADAPTER_SUITE = [
  "test/adapters/hono.test.ts",
  "test/adapters/itty-router.test.ts",
  "test/adapters/forms.test.ts",
  "test/adapters/security.test.ts",
  "test/adapters/responses.test.ts",
  "test/adapters/over-http.test.ts",
  "test/core/body-readable.test.ts",
  "test/ops/rate-limit-address.test.ts",
];
