// The Worker of constant-time.test.ts: the same cases as the Bun and Deno probes, answered inside workerd.
import { constantTimeEqual } from "specroute";

export default {
  async fetch(_request: Request, env: { API_KEY: string }): Promise<Response> {
    return Response.json([
      await constantTimeEqual("k-8f3a", env.API_KEY),
      await constantTimeEqual("k-8f3b", env.API_KEY),
      await constantTimeEqual("grüße", new TextEncoder().encode("grüße")),
      await constantTimeEqual("", ""),
      await constantTimeEqual("k-8f3a", undefined),
    ]);
  },
};
