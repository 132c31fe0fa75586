import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint, onExistingObject } from "./base";
import type { Filters } from "./types";

/**
 * DELETE an object identified by the path: `getObject(filters) → before(oldObj, filters) →
 * delete(oldObj, filters) → after(data)`, answering the deleted object. With `conditionalRequests`, a
 * stale `If-Match` answers 412 and nothing is deleted.
 *
 * @example
 * openapi.delete("/tasks/:id", DeleteTask);
 */
// Declared as every auto endpoint is (what it identifies, its kind for the typed client, its documented answer).
export class DeleteEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  readonly identifiesObject = true;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "delete";

  deriveSchema(): OpenAPIRouteSchema {
    return this.describeEndpoint({
      status: "200",
      description: "The deleted object",
      conditional: { kind: "write", etag: false },
    });
  }

  /** The stored object the filters identify, or null (answered 404); by default null. */
  async getObject(_filters: Filters): Promise<object | null> {
    return null;
  }

  async before(_oldObj: any, filters: Filters): Promise<Filters> {
    return filters;
  }

  /** Deletes the object and returns it, or null if it was already gone (answered 404); by default null. */
  async delete(_oldObj: any, _filters: Filters): Promise<object | null> {
    return null;
  }

  async after(data: any): Promise<any> {
    return data;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    await this.requirePrecondition();
    const { result, filters } = await onExistingObject(this, await this.getFilters(), (old, f) => this.delete(old, f));
    return this.success(this.serialize(result, { filters: filters.filters }));
  }
}
