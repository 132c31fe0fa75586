import type { z } from "zod";
import { jsonResponse } from "../core/respond";
import { OpenAPIRoute, type RouteOptions } from "../core/route";
import type { OpenAPIRouteSchema, RequestSchema, ResponseConfig } from "../core/schema-types";
import { NotFoundException } from "../errors/exceptions";
import { automatic } from "../openapi/automatic-responses";
import { type ResolvedMeta, resolveMeta } from "./meta";
import { errorResponses, jsonResponseConfig, mergeSchema, pickFields, successSchema } from "./schema-helpers";
import type { FilterCondition, Filters, Meta, SerializerContext } from "./types";

/**
 * What the five auto endpoints share: the Meta, the schema derived from it once at registration,
 * path keys turned into filter conditions, the serializer, and the success envelope.
 */
export abstract class ModelEndpoint<HandleArgs extends Array<object> = any> extends OpenAPIRoute<HandleArgs> {
  static override readonly configurationFields: readonly string[] = ["_meta"];

  /** The model this endpoint serves, and how. */
  declare _meta: Meta;

  /** @internal The path keys, resolved once by `prepareRoute()`; requests inherit them from the registered instance. */
  preparedPathKeys: string[] | undefined = undefined;

  /**
   * Set `true` when the endpoint answers 404 for a missing parent object (a nested collection whose
   * parent it looks up, e.g. in `before`), so the document lists that 404.
   *
   * @example
   * class CreateTask extends SqlCreateEndpoint { checksParent = true; async before(data) { ...; throw new NotFoundException(); } }
   */
  checksParent = false;

  /** The Meta with its defaults filled in. */
  get meta(): ResolvedMeta {
    return resolveMeta(this._meta);
  }

  /** URL parameters that are model fields (identifying keys, or a nested collection's parent keys). */
  get pathKeys(): string[] {
    return this.preparedPathKeys ?? resolvePathKeys(this.meta, this.identifiesObject, this.params);
  }

  /** The request and responses this kind of endpoint derives from the Meta. */
  abstract deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema;

  /** Whether the path identifies one object (its keys must be the primary keys) or a collection. */
  abstract readonly identifiesObject: boolean;

  /** Checks the Meta against the path once at registration and keeps the path keys requests read. */
  override prepareRoute(): void {
    super.prepareRoute();
    this.preparedPathKeys = resolvePathKeys(this.meta, this.identifiesObject, this.params);
  }

  /** Derives the schema from the Meta, with the user's own `schema` laid over it; no side effects. */
  override getSchema(): OpenAPIRouteSchema {
    const meta = this.meta;
    return mergeSchema(this.deriveSchema(meta), this.schema as OpenAPIRouteSchema, meta.tags);
  }

  /**
   * The schema shape all auto endpoints share: path keys as `params`, the given request parts, one
   * success response wrapping `result`, and the error responses the endpoint can give.
   */
  describeEndpoint(options: {
    status: string;
    description: string;
    request?: RequestSchema;
    /** What `result` holds; defaults to one serialized object. */
    result?: z.ZodType;
    envelope?: Record<string, z.ZodType>;
  }): OpenAPIRouteSchema {
    const result = options.result ?? this.meta.model.serializerSchema;
    const params =
      this.pathKeys.length > 0 ? { params: pickFields(this.meta.columns, this.pathKeys, "Path parameter") } : {};
    return {
      request: { ...params, ...options.request },
      responses: {
        [options.status]: jsonResponseConfig(options.description, successSchema(result, options.envelope)),
        ...automatic({ ...errorResponses(this.identifiesObject || this.checksParent), ...this.conflictResponses() }),
      },
    };
  }

  /** The conflicts a write can answer, by status; none unless the storage knows its unique constraints. */
  conflictResponses(): Record<string, ResponseConfig> {
    return {};
  }

  /** The validated path keys as filter conditions, in path order. */
  async pathFilters(): Promise<FilterCondition[]> {
    const { params } = (await this.getValidatedData()) as { params?: Record<string, unknown> };
    return this.pathKeys.map((field) => ({ field, operator: "EQ" as const, value: params?.[field] }));
  }

  /** Default filters: the path keys. */
  async getFilters(): Promise<Filters> {
    return { filters: await this.pathFilters() };
  }

  /** Applies the model serializer. */
  serialize(obj: object, context: SerializerContext): object {
    return this.meta.model.serializer(obj, context);
  }

  /** The `{ success: true, result }` response. */
  success(result: unknown, status = 200, extra: Record<string, unknown> = {}): Response {
    return jsonResponse({ success: true, result, ...extra }, status);
  }

  notFound(): never {
    throw new NotFoundException();
  }
}

/**
 * The URL parameters that are model fields. An object's path must name exactly the primary keys
 * (the spec's check, on this segment's parameters unless `pathParameters` names the merged path's);
 * a collection is addressed by the object's path parameters minus the last.
 */
function resolvePathKeys(meta: ResolvedMeta, identifiesObject: boolean, params: RouteOptions | undefined): string[] {
  const urlParams = params?.urlParams ?? [];
  if (!identifiesObject) {
    const collectionKeys = meta.pathParameters ? meta.pathParameters.slice(0, -1) : urlParams;
    return collectionKeys.filter((name) => name in meta.columns.shape);
  }
  const pathKeys = meta.pathParameters ?? urlParams;
  const primaryKeys = meta.model.primaryKeys;
  if (JSON.stringify(pathKeys) !== JSON.stringify(primaryKeys)) {
    throw new Error(
      `Model primaryKeys differ from urlParameters on: ${params?.route}: ${JSON.stringify(primaryKeys)} !== ${JSON.stringify(pathKeys)}`,
    );
  }
  return pathKeys;
}

/** Update and Delete: fetch the existing object (404 if absent), then before → main → after. */
export async function onExistingObject<F extends Filters>(
  endpoint: {
    getObject(filters: F): Promise<object | null>;
    before(oldObj: any, filters: F): Promise<F>;
    after(data: any): Promise<any>;
  },
  filters: F,
  main: (oldObj: any, filters: F) => Promise<object | null>,
): Promise<{ result: object; filters: F }> {
  const oldObj = await endpoint.getObject(filters);
  if (!oldObj) throw new NotFoundException();
  const prepared = await endpoint.before(oldObj, filters);
  const result = await main(oldObj, prepared);
  if (!result) throw new NotFoundException();
  return { result: await endpoint.after(result), filters: prepared };
}
