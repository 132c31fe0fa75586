import { contentJson } from "../core/request/content";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint, onExistingObject, withETag } from "./base";
import type { ResolvedMeta } from "./meta";
import { omitFields, patchFields, writableKeys } from "./schema-helpers";
import type { UpdateFilters } from "./types";

/**
 * PUT or PATCH (chosen by the method it is registered with) an object identified by the path:
 * `getObject(filters) → before(oldObj, filters) → update(oldObj, filters) → after(data)`.
 * PATCH makes every body member optional and drops its default (absent means unchanged, so neither the
 * document nor validation fills one in); `filters.updatedData` holds only what the client sent.
 * With `conditionalRequests`, a stale `If-Match` answers 412 and the answer carries the new `ETag`.
 *
 * @example
 * openapi.patch("/tasks/:id", UpdateTask);
 */
export class UpdateEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  readonly identifiesObject = true;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "update";

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const body = omitFields(meta.fields, writableKeys(this.pathKeys, meta.model.versionField));
    return this.describeEndpoint({
      status: "200",
      description: "The updated object",
      request: { body: contentJson(this.params?.method === "patch" ? patchFields(body) : body) },
      conditional: { kind: "write", etag: true },
    });
  }

  /** Path filters plus `updatedData`: the validated body restricted to the members the client sent. */
  override async getFilters(): Promise<UpdateFilters> {
    const { body } = (await this.getValidatedData()) as { body: Record<string, unknown> };
    const sent = ((await this.getUnvalidatedData()).body ?? {}) as Record<string, unknown>;
    const updatedData: Record<string, unknown> = {};
    for (const key of Object.keys(body)) if (Object.hasOwn(sent, key)) updatedData[key] = body[key];
    return { filters: await this.pathFilters(), updatedData };
  }

  /** The stored object the filters identify, or null (answered 404); by default null. */
  async getObject(_filters: UpdateFilters): Promise<object | null> {
    return null;
  }

  async before(_oldObj: any, filters: UpdateFilters): Promise<UpdateFilters> {
    return filters;
  }

  /** Applies `filters.updatedData` and returns the object as stored; by default writes nothing and returns `oldObj`. */
  async update(oldObj: any, _filters: UpdateFilters): Promise<object> {
    return oldObj;
  }

  async after(data: any): Promise<any> {
    return data;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    await this.requirePrecondition();
    const { result, stored, filters } = await onExistingObject(this, await this.getFilters(), (old, f) =>
      this.update(old, f),
    );
    const tag = this.conditional ? await this.currentTag(stored) : undefined;
    return withETag(this.success(this.serialize(result, { filters: filters.filters })), tag);
  }
}
