import { z } from "zod";
import { OpenAPIRoute, type RouteOptions, sentHeader } from "../core/route/open-api-route";
import { jsonResponse } from "../core/route/respond";
import type { ValidationFailures } from "../core/route/route-plan";
import type { OpenAPIRouteSchema, RequestSchema, ResponseConfig } from "../core/schema-types";
import {
  type ApiException,
  NotFoundException,
  PreconditionFailedException,
  PreconditionRequiredException,
} from "../errors/exceptions";
import { automatic } from "../openapi/automatic-responses";
import { membersOf } from "../schema";
import {
  assertStrongTag,
  checkedTagList,
  entityTagOf,
  ifMatchHeader,
  ifNoneMatchHeader,
  notModifiedResponse,
  parseEntityTags,
  preconditionResponses,
  strongMatch,
  withETagHeader,
} from "./conditional";
import { type ResolvedMeta, resolveMeta } from "./meta";
import { errorResponses, jsonResponseConfig, mergeSchema, pickFields, successSchema } from "./schema-helpers";
import type { FilterCondition, Filters, Logger, Meta, ModelSchema, SerializerContext } from "./types";

/**
 * What an auto endpoint's storage does at the steps every endpoint kind shares. The SQL and Drizzle
 * endpoints hold one as their `storage` (`sql/endpoints/table-storage.ts`); the plain classes hold none.
 */
export interface ModelStorage {
  /** At registration: checks the model against the storage and builds what the route's requests use. */
  prepare(endpoint: ModelEndpoint): void;
  /** The database the request's statements run on. */
  database(endpoint: ModelEndpoint): unknown;
  /** The derived schema with what the storage adds to it (D1's bookmark header). */
  describe?(endpoint: ModelEndpoint, schema: OpenAPIRouteSchema): OpenAPIRouteSchema;
  /** A success answer, given what the storage adds to it (D1's bookmark). */
  answered?(endpoint: ModelEndpoint, response: Response): void;
}

/**
 * What the five auto endpoints share: the Meta, the schema derived from it once at registration,
 * path keys turned into filter conditions, the serializer, and the success envelope.
 */
export abstract class ModelEndpoint<HandleArgs extends Array<object> = any> extends OpenAPIRoute<HandleArgs> {
  // A stored endpoint's database and logger are one object every request shares (a live write's wake-up is per driver).
  static override readonly configurationFields: readonly string[] = ["_meta", "constraintsMessages", "db", "logger"];
  /** Compiled when registered: the Meta and list options are checked against the path and model then, as chanfana does. */
  static override readonly compiledAtRegistration: boolean = true;
  /**
   * Their handlers read the request before anything else, so a 400 answered before `handle()` is the same
   * answer with no handler run; a subclass whose `handle()` checks something first may set `"when-asked"`.
   */
  static override readonly validationFailures: ValidationFailures | undefined = "before-handle";

  /** The model this endpoint serves, and how: its schemas zod's, or another library's (docs/schema-libraries.md). */
  declare _meta: Meta<ModelSchema>;

  /** @internal The path keys, resolved once by `prepareRoute()`; requests inherit them from the registered instance. */
  preparedPathKeys: string[] | undefined = undefined;

  /** The storage the default hooks run on: set by the SQL and Drizzle endpoints, none on the plain classes. */
  declare readonly storage?: ModelStorage;
  /** @internal The storage's table for this route, built once by `prepareRoute()`. */
  storageTable: unknown = undefined;
  /** The database of a stored endpoint; when unset, the binding named by `dbName`, else the router's `db` option. */
  db?: unknown;
  /** Name of the environment binding (Workers `env`) holding a stored endpoint's database, e.g. a D1 binding. */
  dbName?: string;
  /**
   * Answers for UNIQUE violations keyed `"table.column"` (a fresh copy per request); others answer
   * 409 naming the column.
   */
  constraintsMessages: Record<string, ApiException> = {};
  /** Receives a stored endpoint's statements (debug), successful writes (log) and database failures (error). */
  logger?: Logger;

  /**
   * Set `true` when the endpoint answers 404 for a missing parent object (a nested collection whose
   * parent it looks up, e.g. in `before`), so the document lists that 404.
   *
   * @example
   * class CreateTask extends SqlCreateEndpoint { checksParent = true; async before(data) { ...; throw new NotFoundException(); } }
   */
  checksParent = false;

  /**
   * Opt in to conditional requests (RFC 9110 §13): Read, Create and Update answer a strong `ETag`
   * (see {@link etag}); Read answers 304 to a matching `If-None-Match`; Update and Delete answer 412
   * and write nothing when `If-Match` does not match the stored object. Documented only when set.
   *
   * @example
   * class UpdateTask extends SqlUpdateEndpoint { _meta = taskMeta; conditionalRequests = true; }
   */
  conditionalRequests = false;

  /**
   * Update and Delete answer 428 when the request has no `If-Match` (implies `conditionalRequests`).
   *
   * @example
   * class DeleteTask extends SqlDeleteEndpoint { _meta = taskMeta; requireIfMatch = true; }
   */
  requireIfMatch = false;

  /** @internal Per request: whether the request carried `If-Match` (a missing object is then 412, not 404). */
  ifMatchSent = false;
  /**
   * @internal Per request: the stored object an `If-Match` tag matched. SQL endpoints write only while
   * the row is still this one, in the same statement as the write.
   */
  ifMatchObject: object | undefined = undefined;

  /** Whether this endpoint answers conditional requests (`conditionalRequests` or `requireIfMatch`). */
  get conditional(): boolean {
    return this.conditionalRequests || this.requireIfMatch;
  }

  /**
   * The strong entity tag (quotes included) of an object as stored: what the storage method returned
   * (`fetch`, `getObject`, `update`, `create`), before `after` and the serializer. By default `"v<n>"`
   * from the model's `versionField`, else a SHA-256 digest of the object's canonical JSON. Override
   * it to derive the tag from your own storage (a revision id, an updated-at column).
   *
   * @example
   * async etag(obj: Note) { return `"${obj.revision}"`; }
   */
  async etag(obj: object): Promise<string> {
    return entityTagOf(obj, this.meta.model.versionField);
  }

  /** The Meta with its defaults filled in. */
  get meta(): ResolvedMeta {
    return resolveMeta(this._meta);
  }

  /** URL parameters that are model fields: an object's primary keys, or the keys a collection is scoped by. */
  get pathKeys(): string[] {
    return this.preparedPathKeys ?? resolvePathKeys(this.meta, this.identifiesObject, this.params);
  }

  /** The request and responses this kind of endpoint derives from the Meta. */
  abstract deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema;

  /** Whether the path identifies one object (its keys must be the primary keys) or a collection. */
  abstract readonly identifiesObject: boolean;

  /**
   * Checks the Meta against the path once at registration and keeps the path keys requests read; a
   * stored endpoint's storage checks the model and builds its table.
   */
  override prepareRoute(): void {
    super.prepareRoute();
    this.preparedPathKeys = resolvePathKeys(this.meta, this.identifiesObject, this.params);
    this.storage?.prepare(this);
  }

  /**
   * The database for the current request, resolved as the endpoint's own queries resolve it; use it
   * for hand-written statements next to the generated ones.
   */
  database(): unknown {
    if (!this.storage) throw new Error(`${this.constructor.name} has no storage: it is not a SQL or Drizzle endpoint`);
    return this.storage.database(this);
  }

  /** Derives the schema from the Meta, with the user's own `schema` laid over it; no side effects. */
  override getSchema(): OpenAPIRouteSchema {
    const meta = this.meta;
    const schema = mergeSchema(this.deriveSchema(meta), this.schema as OpenAPIRouteSchema, meta.tags);
    return this.storage?.describe?.(this, schema) ?? schema;
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
    /**
     * What an opted-in (`conditionalRequests`) endpoint adds: `read` If-None-Match, ETag and 304;
     * `write` If-Match, 412 (428) and, with `etag`, the ETag header; `create` the ETag header.
     */
    conditional?: { kind: "read" | "write" | "create"; etag: boolean };
  }): OpenAPIRouteSchema {
    const result = options.result ?? this.meta.model.serializerSchema;
    const params =
      this.pathKeys.length > 0 ? { params: pickFields(this.meta.columns, this.pathKeys, "Path parameter") } : {};
    let success = jsonResponseConfig(options.description, successSchema(result, options.envelope));
    const request: RequestSchema = { ...params, ...options.request };
    let preconditions: Record<string, ResponseConfig> = {};
    const conditional = this.conditional ? options.conditional : undefined;
    if (conditional) {
      if (conditional.etag) success = withETagHeader(success);
      if (conditional.kind === "read") {
        request.headers = z.object({ "If-None-Match": ifNoneMatchHeader() });
        preconditions = notModifiedResponse;
      } else if (conditional.kind === "write") {
        request.headers = z.object({ "If-Match": ifMatchHeader(this.requireIfMatch) });
        preconditions = preconditionResponses(this.requireIfMatch);
      }
    }
    return {
      request,
      responses: {
        [options.status]: success,
        ...automatic({
          ...errorResponses(this.identifiesObject || this.checksParent),
          ...this.conflictResponses(),
          ...preconditions,
        }),
      },
    };
  }

  /**
   * A request header an opted-in endpoint declares (`If-Match`, `If-None-Match`), as sent and checked by
   * its own rule: an app's header schema that declares it too, or transforms the headers, cannot turn
   * the check off.
   */
  async conditionalHeader(name: "If-Match" | "If-None-Match"): Promise<string | undefined> {
    // A held 400 (the app's own headers, or this one's) is raised first.
    await this.getValidatedData();
    return checkedTagList(sentHeader(this, name), name);
  }

  /** The endpoint's tag for a stored object, checked to be a strong entity tag. */
  async currentTag(obj: object): Promise<string> {
    return assertStrongTag(await this.etag(obj));
  }

  /** Update and Delete, before any hook: 428 when `requireIfMatch` is set and `If-Match` is missing. */
  async requirePrecondition(): Promise<void> {
    if (!this.conditional) return;
    const ifMatch = await this.conditionalHeader("If-Match");
    this.ifMatchSent = ifMatch !== undefined;
    if (!this.ifMatchSent && this.requireIfMatch) throw new PreconditionRequiredException();
  }

  /**
   * Update and Delete, on the object `getObject` found (null when none): 412 when `If-Match` was sent
   * and the object is missing or its tag is not listed (strong comparison).
   */
  async checkIfMatch(found: object | null): Promise<void> {
    if (!this.conditional || !this.ifMatchSent) return;
    if (!found) throw new PreconditionFailedException();
    const tags = parseEntityTags((await this.conditionalHeader("If-Match"))!);
    if (tags === "*") return;
    if (!strongMatch(tags, await this.currentTag(found))) throw new PreconditionFailedException();
    this.ifMatchObject = found;
  }

  /** The object vanished before the write: 412 when the request carried `If-Match` (RFC 9110 §13.1.1), else 404. */
  missingObject(): never {
    throw this.ifMatchSent ? new PreconditionFailedException() : new NotFoundException();
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
    const response = jsonResponse({ success: true, result, ...extra }, status);
    this.storage?.answered?.(this, response);
    return response;
  }

  notFound(): never {
    throw new NotFoundException();
  }
}

/**
 * The URL parameters that are model fields. An object's path must name exactly the primary keys
 * (the spec's check, on the route's own parameters unless `pathParameters` names the merged path's).
 * A collection (List, Create, Changes) is scoped by every parameter of its own URL that is a model field,
 * as chanfana's List and Create are, and by the keys `pathParameters` names before the object's own
 * (the last), which a mount supplies: `pathParameters` adds path keys, never takes one away.
 */
function resolvePathKeys(meta: ResolvedMeta, identifiesObject: boolean, params: RouteOptions | undefined): string[] {
  const urlParams = params?.urlParams ?? [];
  if (!identifiesObject) {
    const fields = membersOf(meta.columns);
    const keys = new Set([...(meta.pathParameters?.slice(0, -1) ?? []), ...urlParams]);
    return [...keys].filter((name) => name in fields);
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

/**
 * Update and Delete: fetch the existing object (404 if absent, 412 if `If-Match` does not hold), then
 * before → main → after; `forHooks` turns the filters the object was fetched by into those the hooks
 * get (Update's `updatedData`). `stored` is what the main method returned, before `after`.
 */
export async function onExistingObject<F extends Filters>(
  endpoint: ModelEndpoint & {
    getObject(filters: F): Promise<object | null>;
    before(oldObj: any, filters: F): Promise<F>;
    after(data: any): Promise<any>;
  },
  filters: F,
  main: (oldObj: any, filters: F) => Promise<object | null>,
  forHooks?: (oldObj: object, filters: F) => Promise<F>,
): Promise<{ result: object; stored: object; filters: F }> {
  const oldObj = await endpoint.getObject(filters);
  await endpoint.checkIfMatch(oldObj);
  if (!oldObj) throw new NotFoundException();
  const prepared = await endpoint.before(oldObj, forHooks ? await forHooks(oldObj, filters) : filters);
  const stored = await main(oldObj, prepared);
  if (!stored) endpoint.missingObject();
  return { result: await endpoint.after(stored), stored, filters: prepared };
}

/** `response` with the `ETag` header set, when there is a tag (copied when its headers are immutable). */
export function withETag(response: Response, tag: string | undefined): Response {
  if (tag === undefined) return response;
  try {
    response.headers.set("ETag", tag);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set("ETag", tag);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
