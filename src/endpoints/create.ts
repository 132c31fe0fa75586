import { z } from "zod";
import { contentJson } from "../core/request/content";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { type ApiException, isApiException, MultiException, withoutStackTrace } from "../errors/exceptions";
import { compose, isZodSchema } from "../schema";
import { ModelEndpoint, withETag } from "./base";
import type { ResolvedMeta } from "./meta";
import { ModelCheck } from "./model-check";
import { omitFields, writableKeys } from "./schema-helpers";

/**
 * POST a new object: `before(data) → create(data) → after(data)`, answered 201 `{ success, result }`.
 * Path parameters of a nested collection (e.g. `/projects/:projectId/tasks`) are added to the data,
 * and a model a body's members cannot decide alone (a check over the object, another library's model)
 * validates the whole object first: its output is what `before` and `create` get (model-check.ts).
 * With `conditionalRequests`, the answer carries the new object's `ETag`.
 * With `bulk = true` the body may also be an array of objects, created all or none.
 *
 * @example
 * class CreateTask extends CreateEndpoint {
 *   _meta = { model: { tableName: "tasks", schema: Task, primaryKeys: ["id"] } };
 *   async create(data: Task) { return db.insert(data); }
 * }
 */
export class CreateEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  /** Scoped by every URL parameter of the full path serving it, a mount's included (see `resolvePathKeys`). */
  static override readonly compiledPerPath: boolean = true;
  readonly identifiesObject = false;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "create";

  /**
   * Also accept an array of objects (`[{…}, {…}]`): every item is validated first (errors name its
   * index, `["body", 3, "email"]`), each passes `before`, `createMany` stores them all or none, each
   * passes `after`, and the answer is 201 with the array. A single object is created as before.
   *
   * @example
   * class CreateTasks extends SqlCreateEndpoint { _meta = taskMeta; bulk = true; maxBulkItems = 500; }
   */
  bulk = false;
  /** Most objects one bulk request may create; an array longer than this is refused with a 400. */
  maxBulkItems = 100;

  /** @internal The model's check over each object before it is created, compiled by `prepareRoute()`; null when none is needed. */
  preparedModelCheck: ModelCheck | null = null;

  override prepareRoute(): void {
    super.prepareRoute();
    this.preparedModelCheck = ModelCheck.forCreate(this.meta, this.pathKeys);
  }

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const item = omitFields(meta.fields, writableKeys(this.pathKeys, meta.model.versionField));
    // A bulk answer is an array with no ETag of its own; the single-object answer keeps its tag.
    const conditional = { kind: "create", etag: true } as const;
    if (!this.bulk) {
      return this.describeEndpoint({
        status: "201",
        description: "Created",
        request: { body: contentJson(item) },
        conditional,
      });
    }
    const max = this.maxBulkItems;
    if (!Number.isSafeInteger(max) || max < 1) throw new Error(`maxBulkItems must be a positive integer, not ${max}`);
    const atLeast = { count: 1, message: "Send at least one object to create" };
    const atMost = { count: max, message: `At most ${max} objects can be created in one request` };
    const description = `Up to ${max} objects, created all or none`;
    const stored = meta.model.serializerSchema;
    // An array goes to `many`, an object to `item`: a failure names the field inside the item (see issuesToException).
    const [body, result] =
      isZodSchema(item) && isZodSchema(stored)
        ? [
            z.xor([
              item,
              z.array(item).min(atLeast.count, atLeast.message).max(max, atMost.message).describe(description),
            ]),
            z.xor([stored, z.array(stored)]),
          ]
        : [
            compose.either(item, compose.noted(compose.array(item, { min: atLeast, max: atMost }), { description })),
            compose.either(stored, compose.array(stored)),
          ];
    return this.describeEndpoint({
      status: "201",
      description: "Created: the object, or the objects in the order sent",
      request: { body: contentJson(body) },
      result,
      conditional,
    });
  }

  /** The object to create: the validated body plus the nested collection's path keys (the model's output for both, when it is checked whole). */
  async getObject(): Promise<Record<string, any>> {
    const { body } = (await this.getValidatedData()) as { body: Record<string, unknown> };
    return this.objectToCreate(body, (await this.getUnvalidatedData()).body, await this.pathValues(), ["body"]);
  }

  /** With `bulk` on and an array sent, the objects to create (each with the path keys), in order; else null. */
  async getObjects(): Promise<Record<string, any>[] | null> {
    const { body } = (await this.getValidatedData()) as { body: unknown };
    if (!this.bulk || !Array.isArray(body)) return null;
    const path = await this.pathValues();
    const sent = (await this.getUnvalidatedData()).body as unknown[];
    const objects: Record<string, any>[] = [];
    const refused: ApiException[] = [];
    for (const [index, item] of (body as Record<string, unknown>[]).entries()) {
      try {
        objects.push(await this.objectToCreate(item, sent[index], path, ["body", index]));
      } catch (error) {
        // Every object's refusal is named in one 400, as the body's own validation names them.
        if (!isApiException(error)) throw error;
        refused.push(error);
      }
    }
    if (refused.length > 0)
      throw refused.length === 1 ? refused[0] : withoutStackTrace(() => new MultiException(refused));
    return objects;
  }

  /** The path keys' validated values, by field. */
  async pathValues(): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const { field, value } of await this.pathFilters()) values[field] = value;
    return values;
  }

  /** One object to create from its validated body and the body as sent: through the model's check when there is one. */
  async objectToCreate(
    validated: Record<string, unknown>,
    sent: unknown,
    path: Record<string, unknown>,
    at: Array<string | number>,
  ): Promise<Record<string, any>> {
    const check = this.preparedModelCheck;
    return check ? check.created(sent, validated, path, at) : { ...validated, ...path };
  }

  async before(data: any): Promise<any> {
    return data;
  }

  /** Stores the object and returns it as stored; by default stores nothing and returns `data`. */
  async create(data: any): Promise<object> {
    return data;
  }

  /**
   * Stores the objects of a bulk request and returns them as stored, in order. By default it calls
   * `create` for each in turn, which is all or none only if `create` makes it so; SqlCreateEndpoint
   * writes them in one transaction (D1: one batch).
   */
  async createMany(items: any[]): Promise<object[]> {
    const created: object[] = [];
    for (const item of items) created.push(await this.create(item));
    return created;
  }

  async after(data: any): Promise<any> {
    return data;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    const objects = this.bulk ? await this.getObjects() : null;
    if (objects) return this.handleMany(objects);
    const stored = await this.create(await this.before(await this.getObject()));
    const tag = this.conditional ? await this.currentTag(stored) : undefined;
    const data = await this.after(stored);
    return withETag(this.success(this.serialize(data, { filters: [] }), 201), tag);
  }

  /** A bulk request: `before` for each object, `createMany` once, `after` for each; 201 with the array. */
  async handleMany(objects: Record<string, any>[]): Promise<Response> {
    const prepared: unknown[] = [];
    for (const object of objects) prepared.push(await this.before(object));
    const result: object[] = [];
    for (const created of await this.createMany(prepared)) {
      result.push(this.serialize(await this.after(created), { filters: [] }));
    }
    return this.success(result, 201);
  }
}
