import { expectTypeOf, it } from "vitest";
import { ApiException, NotFoundException, OpenAPIRoute } from "../../src";

class MyRouteError extends Error {}

// As chanfana's docs declare the hook: protected, taking and returning unknown.
class Wrapping extends OpenAPIRoute {
  schema = { responses: {} };
  async handle() {
    throw new NotFoundException();
  }
  protected handleError(error: unknown): unknown {
    return error instanceof ApiException ? new MyRouteError(error.message) : error;
  }
}

// Widening the hook to public stays allowed.
class Public extends OpenAPIRoute {
  async handle() {
    return {};
  }
  override handleError(error: unknown): unknown {
    return error;
  }
}

it("keeps handleError protected, so chanfana subclasses declaring it protected compile", () => {
  const endpoint = new Wrapping({} as never);
  // @ts-expect-error: the hook is the pipeline's, not callable from outside the class
  endpoint.handleError(new Error("x"));
  expectTypeOf(new Public({} as never).handleError).returns.toEqualTypeOf<unknown>();
  expectTypeOf(endpoint.execute).returns.resolves.toEqualTypeOf<Response>();
  expectTypeOf(endpoint.getResponseSchema).returns.toMatchTypeOf<object | undefined>();
});
