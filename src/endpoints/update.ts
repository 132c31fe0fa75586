import { contentJson } from "../core/request/content";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint, onExistingObject, withETag } from "./base";
import type { ResolvedMeta } from "./meta";
import { ModelCheck } from "./model-check";
import { omitFields, patchFields, putFields, writableKeys } from "./schema-helpers";
import type { UpdatedData, UpdateFilters } from "./types";

/**
 * PUT or PATCH (chosen by the method it is registered with) an object identified by the path:
 * `getObject(filters) → getUpdatedData(oldObj) → before(oldObj, filters) → update(oldObj, filters) → after(data)`.
 * PATCH makes every body member optional and drops its default, PUT a defaulted one (absent means
 * unchanged, so neither the document nor validation fills one in). As in chanfana, `before` and `update` get `filters.updatedData`
 * as a copy of the fetched object with the members the client sent applied, so storing it as the
 * record keeps every member the client did not send; `oldObj` itself is left as fetched. A model its
 * members cannot decide alone (a check over the object, another library's model) validates the fetched
 * object with the sent members laid over it first, and `updatedData` holds its output for them.
 * With `conditionalRequests`, a stale `If-Match` answers 412 and the answer carries the new `ETag`.
 *
 * @example
 * openapi.patch("/tasks/:id", UpdateTask);
 * // stored { id: 1, a: 1, b: "kept" }, PATCH /tasks/1 { "a": 2 } → updatedData { id: 1, a: 2, b: "kept" }
 */
export class UpdateEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  readonly identifiesObject = true;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "update";

  /**
   * @internal Per request: the fetched object as it was (a copy) and the members the client sent, from
   * which `changedData()` tells what the hooks' `updatedData` changes.
   */
  updateBase: { fetched: Record<string, unknown>; sent: ReadonlySet<string> } | undefined = undefined;

  /** @internal The model's check over the stored row with the changes, compiled by `prepareRoute()`; null when none is needed. */
  preparedModelCheck: ModelCheck | null = null;

  override prepareRoute(): void {
    super.prepareRoute();
    this.preparedModelCheck = ModelCheck.forUpdate(this.meta, this.pathKeys);
  }

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const body = omitFields(meta.fields, writableKeys(this.pathKeys, meta.model.versionField));
    return this.describeEndpoint({
      status: "200",
      description: "The updated object",
      request: { body: contentJson(this.params?.method === "patch" ? patchFields(body) : putFields(body)) },
      conditional: { kind: "write", etag: true },
    });
  }

  /**
   * Path filters plus `updatedData` holding only the members the client sent, validated: what
   * `getObject` receives. `before` and `update` get them applied to the fetched object (`getUpdatedData`).
   */
  override async getFilters(): Promise<UpdateFilters> {
    return { filters: await this.pathFilters(), updatedData: await this.sentData() };
  }

  /** @internal The validated body restricted to the members the client sent (a default it did not send is left out). */
  async sentData(): Promise<Record<string, unknown>> {
    const { body } = (await this.getValidatedData()) as { body: Record<string, unknown> };
    const sent = ((await this.getUnvalidatedData()).body ?? {}) as Record<string, unknown>;
    const data: Record<string, unknown> = {};
    for (const key of Object.keys(body)) if (Object.hasOwn(sent, key)) data[key] = body[key];
    return data;
  }

  /**
   * @internal The members `sent` as the model outputs them, validated whole on `oldObj` with them laid over
   * it (as the client sent them, before their own validation); `sent` itself when no check is needed.
   */
  async checkedChanges(oldObj: object, sent: Record<string, unknown>): Promise<Record<string, unknown>> {
    const check = this.preparedModelCheck;
    if (!check) return sent;
    const raw = (await this.getUnvalidatedData()).body as Record<string, unknown> | undefined;
    const changes: Record<string, unknown> = {};
    for (const key of Object.keys(sent)) changes[key] = raw && Object.hasOwn(raw, key) ? raw[key] : sent[key];
    return check.updated(oldObj as Record<string, unknown>, changes);
  }

  /**
   * The `updatedData` that `before` and `update` receive (chanfana's method): a copy of `oldObj` with
   * `sent` applied, by default the members the client sent. `oldObj` is not changed.
   *
   * @example
   * async getUpdatedData(oldObj: Note) {
   *   const { updatedData } = await super.getUpdatedData(oldObj);
   *   return { updatedData: { ...updatedData, editedAt: new Date().toISOString() } };
   * }
   */
  async getUpdatedData(oldObj: object, sent?: Record<string, unknown>): Promise<UpdatedData> {
    return { updatedData: { ...oldObj, ...(sent ?? (await this.sentData())) } };
  }

  /** The stored object the filters identify, or null (answered 404); by default null. */
  async getObject(_filters: UpdateFilters): Promise<object | null> {
    return null;
  }

  async before(_oldObj: any, filters: UpdateFilters): Promise<UpdateFilters> {
    return filters;
  }

  /** Stores `filters.updatedData` and returns the object as stored; by default writes nothing and returns `oldObj`. */
  async update(oldObj: any, _filters: UpdateFilters): Promise<object> {
    return oldObj;
  }

  async after(data: any): Promise<any> {
    return data;
  }

  /**
   * @internal The members of `filters.updatedData` a storage that writes column by column writes: the
   * ones the client sent and the ones a hook added or set to another value than the fetched object's.
   * All of them when `handle()` did not build `updatedData` (`update()` called on its own).
   */
  changedData(filters: UpdateFilters): Record<string, unknown> {
    const base = this.updateBase;
    if (!base) return filters.updatedData;
    const { fetched, sent } = base;
    const changed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(filters.updatedData)) {
      if (sent.has(key) || !Object.hasOwn(fetched, key) || !Object.is(value, fetched[key])) changed[key] = value;
    }
    return changed;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    await this.requirePrecondition();
    const { result, stored, filters } = await onExistingObject(
      this,
      await this.getFilters(),
      (old, f) => this.update(old, f),
      (old, f) => hookFilters(this, old, f),
    );
    const tag = this.conditional ? await this.currentTag(stored) : undefined;
    return withETag(this.success(this.serialize(result, { filters: filters.filters })), tag);
  }
}

/** The filters `before` gets: those `getFilters()` gave, with `updatedData` built from the fetched object. */
async function hookFilters(endpoint: UpdateEndpoint, oldObj: object, initial: UpdateFilters): Promise<UpdateFilters> {
  // A getFilters() written as chanfana's returns no updatedData: the members sent are then read here.
  const sent = await endpoint.checkedChanges(oldObj, initial.updatedData ?? (await endpoint.sentData()));
  endpoint.updateBase = { fetched: { ...oldObj }, sent: new Set(Object.keys(sent)) };
  const { updatedData } = await endpoint.getUpdatedData(oldObj, sent);
  return { ...initial, updatedData };
}
