import { z } from "zod";
import { addressKey, noConnectionAddress } from "../core/ops/client-address";
import { sentHeader } from "../core/route/open-api-route";
import type { StreamHeartbeat } from "../core/route/respond";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { errorEnvelopeSchema, invalidField, problemBodySchema, TooManyRequestsException } from "../errors/exceptions";
import type { ChangeFeed } from "../live/feed";
import { admitListener } from "../live/limits";
import { type ChangeSource, type ListenerView, listen } from "../live/listen";
import type { ChangeKind, RecordedChange } from "../live/types";
import { automatic } from "../openapi/automatic-responses";
import { isZodSchema, membersOf, seam } from "../schema";
import { ModelEndpoint } from "./base";
import {
  compileFilterParameters,
  type FilterOperatorName,
  type FilterParameter,
  filterDescription,
  filterSchema,
} from "./list";
import type { ResolvedMeta } from "./meta";
import { rowMatcher } from "./row-match";
import { describedAs } from "./schema-helpers";
import type { FilterCondition, Filters } from "./types";

// An event's id is its seq: at most 15 digits, so every one is a safe integer.
const EVENT_ID = /^\d{1,15}$/;
const EVENT_ID_MESSAGE = "must be the id of an event this stream sent";

/** One event of a changes stream, as the handler yields it and the document declares it. */
export interface ChangeEvent {
  event: ChangeKind | "reset" | "lagged" | "reconnect";
  /**
   * The change's place in the collection's log: what a reconnecting client sends back as `Last-Event-ID`.
   * `lagged` and `reconnect` carry the place the client goes on from.
   */
  id?: string;
  data: { object: object; etag?: string } | { message: string };
}

/**
 * GET a live collection's changes as Server-Sent Events: `created`, `updated` and `deleted`, each with
 * the object as the Read endpoint serializes it and its `id` in the collection's log, from now on, or
 * from the `Last-Event-ID` a reconnecting client sends. A listener sees exactly what the List endpoint
 * with the same filters would show it: the path's keys, `filterFields` and `filterOperators` as
 * query parameters, the route's security, and `before(filters)` to narrow them per principal. An update
 * that takes an object out of the filters arrives as `deleted`, carrying the object as it was before the
 * update (never what it became), one that brings it in as `created`.
 * `reset` says changes were missed (list again); `lagged` ends a stream whose client reads too slowly,
 * and `reconnect` one that reached the feed's `lifetimeMs`, each with the id to reconnect with, so a
 * reconnect is authenticated again. A caller (`listenerKey()`) holds at most `maxListeners.perCaller`
 * streams at once, a process `perProcess`: past either, 429.
 * The storage's subclass supplies `changeSource()` (SqlChangesEndpoint). Like List, it is scoped by every
 * URL parameter that is a model field, and by the keys a mount supplies that `pathParameters` names
 * before the object's own: share the collection's Meta, which names one object's full path.
 *
 * @example
 * const taskMeta = { model: taskModel, changes: taskFeed, pathParameters: ["projectId", "id"] };
 * class TaskChanges extends SqlChangesEndpoint {
 *   _meta = taskMeta; // registered at /projects/:projectId/tasks/changes: one project's tasks
 *   filterFields = ["done"];
 * }
 */
export class ChangesEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  declare readonly "~crud": "changes";
  filterFields: string[] = [];
  filterOperators: Record<string, FilterOperatorName[]> = {};
  /** Scoped by every URL parameter of the full path serving it, a mount's included (see `resolvePathKeys`). */
  static override readonly compiledPerPath: boolean = true;
  readonly identifiesObject = false;
  /** @internal The filter parameters, checked against the model once at registration. */
  preparedFilterParameters: FilterParameter[] | undefined = undefined;

  get filterParameters(): FilterParameter[] {
    this.preparedFilterParameters ??= changeFilters(this.meta, this.filterFields, this.filterOperators);
    return this.preparedFilterParameters;
  }

  /** The collection's settings: the Meta must name a change feed. */
  get feed(): ChangeFeed {
    // Checked by prepareRoute.
    return this.meta.changes!;
  }

  override prepareRoute(): void {
    super.prepareRoute();
    // A Meta without a change feed is refused at registration, not at the first listener.
    if (!this.meta.changes) throw new Error(`${this.constructor.name}: the _meta has no changes feed (changeFeed())`);
    this.preparedFilterParameters = changeFilters(this.meta, this.filterFields, this.filterOperators);
  }

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const query: Record<string, z.ZodType> = {};
    for (const { key, field, operator } of this.filterParameters) {
      query[key] = describedAs(
        filterSchema(membersOf(meta.columns)[field]!, operator),
        filterDescription(field, operator),
      );
    }
    const described = this.describeEndpoint({ status: "200", description: "Changes", result: z.never() });
    const { request = {}, responses = {} } = described;
    return {
      ...described,
      request: {
        ...request,
        ...(Object.keys(query).length > 0 ? { query: z.object(query) } : {}),
        headers: z.object({
          "Last-Event-ID": z
            .string()
            .regex(EVENT_ID, EVENT_ID_MESSAGE)
            .optional()
            .describe("The id of the last event received: the stream goes on after it (reconnects send it)"),
        }),
      },
      responses: {
        ...responses,
        ...automatic(TooManyRequestsException.schema()),
        "200": {
          description: "The collection's changes as they happen, as Server-Sent Events",
          // The error event carries the body an error response of this router would.
          content: {
            "text/event-stream": {
              itemSchema: changeEventSchema(meta, this.params?.router?.options.errorFormat === "problem"),
            },
          },
        },
      },
    };
  }

  /** Path keys and filter parameters as conditions, as List reads them (no search, no order, no pages). */
  override async getFilters(): Promise<Filters> {
    const { query } = (await this.getValidatedData()) as { query?: Record<string, unknown> };
    const filters: FilterCondition[] = await this.pathFilters();
    for (const { key, field, operator } of this.filterParameters) {
      if (query?.[key] !== undefined) filters.push({ field, operator, value: query[key] });
    }
    return { filters };
  }

  /** Narrows the conditions per request (per principal, per tenant) before the stream starts. */
  async before(filters: Filters): Promise<Filters> {
    return filters;
  }

  /** Where the collection's changes are read; the storage's subclass supplies it. */
  async changeSource(): Promise<ChangeSource<unknown>> {
    throw new Error(`${this.constructor.name} has no storage: extend SqlChangesEndpoint, or implement changeSource()`);
  }

  /**
   * Whom a listener counts against for the feed's `maxListeners.perCaller`: by default the client's
   * address as the runtime gives it (IPv6 by /64); override it to count by principal. `undefined` counts it in the process's bound only.
   * A request whose connection the runtime names no address for (the client is gone) is refused with a 400.
   *
   * @example
   * override async listenerKey() {
   *   return `user:${(await this.getPrincipal()).id}`;
   * }
   */
  async listenerKey(): Promise<string | undefined> {
    // Built by hand (a unit test), an endpoint has no router to read the request from.
    const given = this.params.router?.clientAddress(this.args);
    // The runtime serves the request but names no address (the client is gone): never a listener counted by none.
    if (given === null) throw noConnectionAddress();
    // No address known: undefined, as one shared key would let any client fill it for everyone.
    return given === undefined ? undefined : addressKey(given);
  }

  async handle(..._args: HandleArgs): Promise<AsyncIterable<ChangeEvent | StreamHeartbeat>> {
    // Counted first, so a caller past its bound costs no filters and no read.
    const slot = admitListener(this.feed, await this.listenerKey());
    try {
      const filters = await this.before(await this.getFilters());
      // before() may add conditions of its own: each must be one a listener can follow.
      for (const { field, operator } of filters.filters) {
        const refused = unfollowable(this.meta, field, operator);
        if (refused) throw new Error(refused);
      }
      const source = await this.changeSource();
      const after = await this.lastEventId();
      return await listen(source, this.viewOf(rowMatcher(filters.filters)), { after, slot });
    } catch (error) {
      slot.release();
      throw error;
    }
  }

  /**
   * The `Last-Event-ID` a reconnecting client sent, as a seq: read as sent and checked by its own rule, so
   * an app's header schema that declares or transforms it cannot drop the replay.
   */
  async lastEventId(): Promise<number | undefined> {
    // A held 400 (the app's own headers, or this one's) is raised first.
    await this.getValidatedData();
    const sent = sentHeader(this, "Last-Event-ID");
    if (sent === "") return undefined;
    if (!EVENT_ID.test(sent)) throw invalidField(EVENT_ID_MESSAGE, ["headers", "Last-Event-ID"]);
    return Number(sent);
  }

  /** A row of the change log (through JSON) as the storage reads its rows: dates as Dates, as Read serializes them. */
  decodeChangeRow(row: Record<string, unknown>): Record<string, unknown> {
    return row;
  }

  /** What a listener with these filters is sent of each change (see the class's description). */
  viewOf(matches: (row: Record<string, unknown>) => boolean): ListenerView<ChangeEvent> {
    const context = { filters: [] as FilterCondition[] };
    const versionField = this.meta.model.versionField;
    const event = (kind: ChangeKind, change: RecordedChange, row: Record<string, unknown>): ChangeEvent => {
      const object = this.serialize(row, context);
      const version = versionField === undefined ? undefined : row[versionField];
      const data = typeof version === "number" ? { object, etag: `"v${version}"` } : { object };
      return { event: kind, id: String(change.seq), data };
    };
    return {
      select: (change) => {
        const row = this.decodeChangeRow(change.row);
        const now = matches(row);
        if (change.kind !== "updated") return now ? event(change.kind, change, row) : null;
        if (change.before === null) return now ? event("updated", change, row) : null;
        const before = this.decodeChangeRow(change.before);
        if (!matches(before)) return now ? event("created", change, row) : null;
        // A row that left the filters is told as the listener could see it: what it became is another's.
        return now ? event("updated", change, row) : event("deleted", change, before);
      },
      reset: () => ({
        event: "reset",
        data: {
          message:
            "Changes were missed (older than the log keeps, or than the feed replays): list the collection again",
        },
      }),
      lagged: (resumeAfter) => ({
        event: "lagged",
        id: String(resumeAfter),
        data: { message: "This client read changes slower than they came: reconnect with Last-Event-ID" },
      }),
      reconnect: (resumeAfter) => ({
        event: "reconnect",
        id: String(resumeAfter),
        data: { message: "This stream reached its lifetime: reconnect with Last-Event-ID" },
      }),
    };
  }
}

const RANGES: ReadonlySet<string> = new Set(["GT", "GTE", "LT", "LTE"]);
/** Stored kinds a listener orders exactly as List's SQL does: by value. */
const ORDERED_BY_VALUE: ReadonlySet<string> = new Set(["number", "bigint", "boolean"]);
/** Text whose every value orders alike by bytes and by any collation: ISO dates and date-times (a Date's JSON Schema says date-time). */
const ISO_FORMATS: ReadonlySet<unknown> = new Set(["date-time", "date"]);

/**
 * Why a listener cannot filter `field` by `operator`, or null when it can. A range (`__gt`, `__lte`, ...)
 * is followed only over a number, a bigint, a date, a boolean, ISO date or date-time text, or an enum or literal
 * of numbers: anything else may be text, which the database orders by its collation (case-insensitive on
 * MariaDB, the locale's on PostgreSQL) and a listener matching rows in JavaScript cannot, so the stream
 * would send rows List hides.
 */
function unfollowable(meta: ResolvedMeta, field: string, operator: string): string | null {
  const declared = membersOf(meta.columns)[field] as z.ZodType | undefined;
  // As List's SQL refuses a column the model does not have.
  if (declared === undefined) return `A changes endpoint cannot filter ${field}: it is not a field of the model`;
  if (!RANGES.has(operator) || orderedByValue(declared)) return null;
  return `A changes endpoint cannot filter ${field} by ${operator}: it may be text, which the database orders by its collation and a live listener cannot follow (filter text by equality, or order a number or a date)`;
}

function orderedByValue(member: z.ZodType): boolean {
  if (ORDERED_BY_VALUE.has(seam.columnKind(member))) return true;
  // The stored side: what a pipe or a transform outputs is what the row holds.
  // Stryker disable next-line StringLiteral: every OpenAPI target writes a format alike
  return ISO_FORMATS.has(seam.toJsonSchema(member, "3.1", "output").schema.format);
}

/** The filter parameters as List compiles them, each one a listener can follow (see `unfollowable`). */
function changeFilters(
  meta: ResolvedMeta,
  filterFields: string[],
  filterOperators: Record<string, FilterOperatorName[]>,
): FilterParameter[] {
  const parameters = compileFilterParameters(meta, filterFields, filterOperators);
  for (const { field, operator } of parameters) {
    const refused = unfollowable(meta, field, operator);
    if (refused) throw new Error(refused);
  }
  return parameters;
}

/** The events a changes stream sends, one schema per kind, as the document's `itemSchema`. */
function changeEventSchema(meta: ResolvedMeta, problemDetails: boolean): z.ZodType {
  const object = meta.model.serializerSchema;
  if (!isZodSchema(object)) {
    throw new Error("A changes endpoint needs a zod model schema for now: see docs/schema-libraries.md");
  }
  const tagged = meta.model.versionField !== undefined;
  const change = (kind: ChangeKind, description: string) =>
    z
      .object({
        event: z.literal(kind),
        id: z.string().describe("Its place in the collection's log; send it back as Last-Event-ID"),
        data: z.object({
          object,
          ...(tagged ? { etag: z.string().optional().describe("The object's ETag, from its version") } : {}),
        }),
      })
      .describe(description);
  const notice = (kind: "reset" | "lagged" | "reconnect", description: string, resumes: boolean) =>
    z
      .object({
        event: z.literal(kind),
        ...(resumes ? { id: z.string().describe("Where the client goes on from; send it back as Last-Event-ID") } : {}),
        data: z.object({ message: z.string() }),
      })
      .describe(description);
  return z.union([
    change("created", "An object was created, or an update brought it into the filters"),
    change("updated", "An object changed and still meets the filters"),
    change("deleted", "An object was deleted, or an update took it out of the filters: the object as it was before"),
    notice("reset", "Changes were missed: list the collection again; the stream goes on from now", false),
    notice("lagged", "The last event of a client that read too slowly; reconnect with its id as Last-Event-ID", true),
    notice(
      "reconnect",
      "The last event of a stream that reached its lifetime; reconnect with its id as Last-Event-ID",
      true,
    ),
    z
      .object({ event: z.literal("error"), data: problemDetails ? problemBodySchema : errorEnvelopeSchema })
      .describe("The last event of a stream that failed part-way (the database went away): reconnect"),
  ]);
}
