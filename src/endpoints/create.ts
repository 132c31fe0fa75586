import { contentJson } from "../core/content";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint } from "./base";
import type { ResolvedMeta } from "./meta";
import { omitFields } from "./schema-helpers";

/**
 * POST a new object: `before(data) → create(data) → after(data)`, answered 201 `{ success, result }`.
 * Path parameters of a nested collection (e.g. `/projects/:projectId/tasks`) are added to the data.
 *
 * @example
 * class CreateTask extends CreateEndpoint {
 *   _meta = { model: { tableName: "tasks", schema: Task, primaryKeys: ["id"] } };
 *   async create(data: Task) { return db.insert(data); }
 * }
 */
export class CreateEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  readonly identifiesObject = false;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "create";

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const body = contentJson(omitFields(meta.fields, this.pathKeys));
    return this.describeEndpoint({ status: "201", description: "Created", request: { body } });
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
    let data = await this.before(await this.getObject());
    data = await this.after(await this.create(data));
    return this.success(this.serialize(data, { filters: [] }), 201);
  }
}
