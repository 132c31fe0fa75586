import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint, withETag } from "./base";
import { notModified, parseEntityTags, weakMatch } from "./conditional";
import type { Filters } from "./types";

/**
 * GET one object by its primary keys in the path: `before(filters) → fetch(filters) → after(data)`;
 * `fetch` returning null answers 404. With `conditionalRequests`, answers carry an `ETag` and a matching
 * `If-None-Match` answers 304 without a body.
 *
 * @example
 * class GetTask extends ReadEndpoint {
 *   _meta = { model: { tableName: "tasks", schema: Task, primaryKeys: ["id"] } };
 *   async fetch(filters: Filters) { return db.get(filters.filters[0].value); }
 * }
 */
export class ReadEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  readonly identifiesObject = true;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "read";

  deriveSchema(): OpenAPIRouteSchema {
    return this.describeEndpoint({
      status: "200",
      description: "The object",
      conditional: { kind: "read", etag: true },
    });
  }

  async before(filters: Filters): Promise<Filters> {
    return filters;
  }

  /** The object the filters identify, or null (answered 404); by default null. */
  async fetch(_filters: Filters): Promise<object | null> {
    return null;
  }

  async after(data: any): Promise<any> {
    return data;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    const filters = await this.before(await this.getFilters());
    const found = await this.fetch(filters);
    if (!found) this.notFound();
    const tag = this.conditional ? await this.currentTag(found) : undefined;
    const data = await this.after(found);
    if (tag !== undefined) {
      const ifNoneMatch = await this.conditionalHeader("If-None-Match");
      if (ifNoneMatch !== undefined && weakMatch(parseEntityTags(ifNoneMatch), tag)) return notModified(tag);
    }
    return withETag(this.success(this.serialize(data, { filters: filters.filters, options: {} })), tag);
  }
}
