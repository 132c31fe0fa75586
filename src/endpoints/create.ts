import { contentJson } from "../core/content";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint, withETag } from "./base";
import type { ResolvedMeta } from "./meta";
import { omitFields, writableKeys } from "./schema-helpers";

/**
 * POST a new object: `before(data) → create(data) → after(data)`, answered 201 `{ success, result }`.
 * Path parameters of a nested collection (e.g. `/projects/:projectId/tasks`) are added to the data.
 * With `conditionalRequests`, the answer carries the new object's `ETag`.
 *
 * @example
 * class CreateTask extends CreateEndpoint {
 *   _meta = { model: { tableName: "tasks", schema: Task, primaryKeys: ["id"] } };
 *   async create(data: Task) { return db.insert(data); }
 * }
 */
export class CreateEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  readonly identifiesObject = false;

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const body = contentJson(omitFields(meta.fields, writableKeys(this.pathKeys, meta.model.versionField)));
    return this.describeEndpoint({
      status: "201",
      description: "Created",
      request: { body },
      conditional: { kind: "create", etag: true },
    });
  }

  /** The object to create: the validated body plus the nested collection's path keys. */
  async getObject(): Promise<Record<string, any>> {
    const { body } = (await this.getValidatedData()) as { body: Record<string, unknown> };
    const data: Record<string, unknown> = { ...body };
    for (const { field, value } of await this.pathFilters()) data[field] = value;
    return data;
  }

  async before(data: any): Promise<any> {
    return data;
  }

  /** Stores the object and returns it as stored; by default stores nothing and returns `data`. */
  async create(data: any): Promise<object> {
    return data;
  }

  async after(data: any): Promise<any> {
    return data;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    const stored = await this.create(await this.before(await this.getObject()));
    const tag = this.conditional ? await this.currentTag(stored) : undefined;
    const data = await this.after(stored);
    return withETag(this.success(this.serialize(data, { filters: [] }), 201), tag);
  }
}
