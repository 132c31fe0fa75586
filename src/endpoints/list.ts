import { z } from "zod";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { InputValidationException } from "../errors/exceptions";
import { compose, isZodSchema, membersOf } from "../schema";
import { ModelEndpoint } from "./base";
import { CursorCodec, type ListOrder, linkHeader, listingTag, type Pagination } from "./cursor";
import type { ResolvedMeta } from "./meta";
import { arrayOf, bareField, describedAs, objectOf, optionalOf, withoutDefault } from "./schema-helpers";
import type {
  FilterCondition,
  FilterOperator,
  ListCursor,
  ListFilters,
  ListOptions,
  ListResult,
  OrderByDirection,
} from "./types";

/** Opt-in comparison operators a list filter can offer, as `field__gt=…` query parameters. */
export type FilterOperatorName = "gt" | "gte" | "lt" | "lte" | "in" | "ne" | "isnull";

const OPERATORS: Record<FilterOperatorName, FilterOperator> = {
  gt: "GT",
  gte: "GTE",
  lt: "LT",
  lte: "LTE",
  in: "IN",
  ne: "NE",
  isnull: "ISNULL",
};

/** Which model field and comparison one query parameter stands for. */
export interface FilterParameter {
  key: string;
  field: string;
  operator: FilterOperator;
}

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** The order and filters a cursor request was checked against, per request object (set by getFilters). */
const listings = new WeakMap<object, { order: ListOrder; tag: string }>();

/**
 * GET a page of objects with exact-match filters, opt-in operators, search and ordering:
 * `before(filters) → list(filters) → after(result)`, answered
 * `{ success, result: [...], result_info: { count, page, per_page, total_count? } }`.
 *
 * @example
 * class ListTasks extends ListEndpoint {
 *   _meta = { model: TaskModel };
 *   filterFields = ["status"];
 *   filterOperators = { priority: ["gte", "lte"] };
 *   searchFields = ["title"];
 *   orderByFields = ["priority", "title"];
 *   defaultOrderBy = "priority";
 *   async list(filters: ListFilters) { return { result: await db.find(filters) }; }
 * }
 */
export class ListEndpoint<HandleArgs extends Array<object> = any> extends ModelEndpoint<HandleArgs> {
  static override readonly configurationFields: readonly string[] = [
    "filterFields",
    "filterOperators",
    "searchFields",
    "orderByFields",
  ];
  /** Scoped by every URL parameter of the full path serving it, a mount's included (see `resolvePathKeys`). */
  static override readonly compiledPerPath: boolean = true;

  /** Fields with an exact-match query parameter of the same name. */
  filterFields: string[] = [];
  /** Extra comparisons per field, offered as `<field>__<op>` query parameters. */
  filterOperators: Record<string, FilterOperatorName[]> = {};
  /** Fields the search term is matched against (LIKE-style, case-insensitive). */
  searchFields: string[] = [];
  searchFieldName = "search";
  orderByFields: string[] = [];
  defaultOrderBy?: string;
  defaultOrderByDirection: OrderByDirection = "asc";
  /** Query parameter names of the four options; `filters.options` is keyed by the names in force. */
  pageFieldName = "page";
  perPageFieldName = "per_page";
  orderByFieldName = "order_by";
  orderByDirectionFieldName = "order_by_direction";
  /** Largest page size served: a larger `per_page` is cut to it; above 100 it also raises the accepted maximum. */
  maxPerPage = MAX_PER_PAGE;
  /**
   * How clients page: `"page"` numbers (chanfana's, the default), `"cursor"` (keyset: `cursor` and
   * `per_page`, no page numbers, no count), or `"both"` (page numbers, and cursors in every answer).
   */
  pagination: Pagination = "page";
  /** Query parameter carrying the cursor, when `pagination` offers cursors. */
  cursorFieldName = "cursor";

  /** @internal Cursor encoding for this endpoint's keys, compiled once by `prepareRoute()`. */
  preparedCursorCodec: CursorCodec | undefined = undefined;

  /** @internal Query parameters that are filters, compiled once by `prepareRoute()`. */
  preparedFilterParameters: FilterParameter[] | undefined = undefined;

  readonly identifiesObject = false;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "list";

  /** The option parameter names in force (never filters): the four of chanfana, and the cursor when offered. */
  get optionFields(): string[] {
    const names = [this.pageFieldName, this.perPageFieldName, this.orderByFieldName, this.orderByDirectionFieldName];
    return this.pagination === "page" ? names : [...names, this.cursorFieldName];
  }

  /** Encodes and checks this endpoint's cursors. */
  get cursorCodec(): CursorCodec {
    return this.preparedCursorCodec ?? new CursorCodec(this.meta, this.orderByFields);
  }

  /** Query parameters that are filters. */
  get filterParameters(): FilterParameter[] {
    return this.preparedFilterParameters ?? compileFilterParameters(this.meta, this.filterFields, this.filterOperators);
  }

  override prepareRoute(): void {
    super.prepareRoute();
    this.preparedFilterParameters = compileFilterParameters(this.meta, this.filterFields, this.filterOperators);
    if (!["page", "cursor", "both"].includes(this.pagination)) {
      throw new Error(`pagination must be "page", "cursor" or "both", not ${JSON.stringify(this.pagination)}`);
    }
    if (this.pagination !== "page") this.preparedCursorCodec = new CursorCodec(this.meta, this.orderByFields);
  }

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const perPageLimit = Math.max(MAX_PER_PAGE, this.maxPerPage);
    const shape: Record<string, z.ZodType> = {};
    const add = (key: string, schema: z.ZodType) => {
      if (key in shape) throw new Error(`List query parameter "${key}" is declared twice: rename a field option`);
      shape[key] = schema;
    };
    if (this.pagination !== "cursor") {
      add(this.pageFieldName, z.number().int().min(1).default(1).describe("Page number, from 1"));
    }
    add(
      this.perPageFieldName,
      z
        .number()
        .int()
        .min(1)
        .max(perPageLimit)
        .default(DEFAULT_PER_PAGE)
        .describe(`Objects per page, at most ${Math.min(perPageLimit, this.maxPerPage)}`),
    );
    for (const { key, field, operator } of this.filterParameters) {
      add(
        key,
        describedAs(filterSchema(membersOf(meta.columns)[field]!, operator), filterDescription(field, operator)),
      );
    }
    if (this.searchFields.length > 0) {
      checkFields(meta, this.searchFields, "searchFields");
      add(
        this.searchFieldName,
        z
          .string()
          .optional()
          .describe(`Search in ${this.searchFields.join(", ")}`),
      );
    }
    if (this.orderByFields.length > 0) {
      checkFields(meta, this.orderByFields, "orderByFields");
      const orderBy = z.enum(this.orderByFields as [string, ...string[]]);
      // chanfana defaults the order to the first of orderByFields; defaultOrderBy, when set, chooses another.
      add(
        this.orderByFieldName,
        orderBy.default(this.defaultOrderBy ?? this.orderByFields[0]!).describe("Field to order by"),
      );
      add(
        this.orderByDirectionFieldName,
        z.enum(["asc", "desc"]).default(this.defaultOrderByDirection).describe("Order direction"),
      );
    }
    if (this.pagination !== "page") {
      add(
        this.cursorFieldName,
        z
          .string()
          .optional()
          .describe(
            `Where the page starts: a next_cursor or prev_cursor of an earlier answer, sent with the same ordering and filters`,
          ),
      );
    }
    const described = this.describeEndpoint({
      status: "200",
      description: "A page of objects",
      request: { query: objectOf(shape) },
      result: arrayOf(meta.model.serializerSchema),
      envelope: { result_info: this.resultInfoSchema() },
    });
    if (this.pagination === "page") return described;
    described.responses!["200"]!.headers = z.object({
      Link: z
        .string()
        .optional()
        .describe(
          'RFC 8288 links to the next and previous pages (rel="next", rel="prev"), relative to the request URL',
        ),
    });
    return described;
  }

  /**
   * The documented `result_info`: chanfana's for page numbers; with cursors, `next_cursor` and
   * `prev_cursor` (null at either end), and `page` only on page-number requests.
   */
  resultInfoSchema(): z.ZodObject {
    const count = z.number().int();
    const total_count = this.alwaysCountsTotal() ? z.number().int() : z.number().int().optional();
    if (this.pagination === "page") {
      return z.object({ count, page: z.number().int(), per_page: z.number().int(), total_count });
    }
    const cursors = {
      next_cursor: z.string().nullable().describe("Cursor of the page after this one; null when none follows"),
      prev_cursor: z.string().nullable().describe("Cursor of the page before this one; null on the first page"),
    };
    if (this.pagination === "cursor") return z.object({ count, per_page: z.number().int(), total_count, ...cursors });
    return z.object({
      count,
      page: z.number().int().optional().describe("Sent when the request pages by number (no cursor)"),
      per_page: z.number().int(),
      total_count,
      ...cursors,
    });
  }

  /**
   * Whether every answer's `result_info` carries `total_count`, so the document lists it as required;
   * false here, since `list()` may not count. Endpoints that always count (SqlListEndpoint) say true.
   *
   * @example
   * class ListTags extends ListEndpoint { override alwaysCountsTotal() { return true; } }
   */
  alwaysCountsTotal(): boolean {
    return false;
  }

  /**
   * Path keys, filters, operators and search as conditions; pagination and ordering as options,
   * keyed by the parameter names in force, with the page size cut to `maxPerPage`.
   */
  override async getFilters(): Promise<ListFilters> {
    const { query } = (await this.getValidatedData()) as { query: Record<string, any> };
    const filters: FilterCondition[] = await this.pathFilters();
    for (const { key, field, operator } of this.filterParameters) {
      if (query[key] !== undefined) filters.push({ field, operator, value: query[key] });
    }
    const term = query[this.searchFieldName];
    if (this.searchFields.length > 0 && term !== undefined) {
      filters.push({ field: this.searchFieldName, operator: "LIKE", value: term });
    }
    const options: ListOptions = {};
    for (const name of this.optionFields) if (query[name] !== undefined) options[name] = query[name];
    const perPage = options[this.perPageFieldName];
    if (typeof perPage === "number") options[this.perPageFieldName] = Math.min(perPage, this.maxPerPage);
    if (this.pagination !== "page") this.checkCursor(filters, options);
    return { filters, options };
  }

  /**
   * Cursor requests: decodes the cursor option in place (a 400 when it does not decode or belongs to
   * another order or other filters) and remembers what this request's own cursors will be bound to.
   */
  checkCursor(filters: FilterCondition[], options: ListOptions): void {
    const { order, tag } = this.listingOf({ filters, options });
    listings.set(this, { order, tag });
    const text = options[this.cursorFieldName];
    if (typeof text !== "string") return;
    const page = options[this.pageFieldName];
    if (typeof page === "number" && page !== 1) {
      throw new InputValidationException("A page number and a cursor cannot be combined", [
        "query",
        this.pageFieldName,
      ]);
    }
    options[this.cursorFieldName] = this.cursorCodec.decode(text, order, tag, ["query", this.cursorFieldName]);
  }

  async before(filters: ListFilters): Promise<ListFilters> {
    return filters;
  }

  /** One page of objects matching the filters; by default none. */
  async list(_filters: ListFilters): Promise<ListResult<object>> {
    return { result: [] };
  }

  async after(data: ListResult<object>): Promise<ListResult<object>> {
    return data;
  }

  async handle(..._args: HandleArgs): Promise<Response> {
    const requested = await this.getFilters();
    const filters = await this.before(requested);
    const listed = await this.after(await this.list(filters));
    const context = { filters: filters.filters, options: filters.options };
    const result = listed.result.map((obj) => this.serialize(obj, context));
    const page = filters.options[this.pageFieldName];
    const per_page = filters.options[this.perPageFieldName];
    if (this.pagination === "page") {
      return this.success(result, 200, {
        result_info: { count: result.length, page, per_page, ...listed.result_info },
      });
    }
    const cursor = filters.options[this.cursorFieldName] as ListCursor | undefined;
    const byNumber = this.pagination === "both" && cursor === undefined;
    const links = this.pageCursors(listed, listings.get(this) ?? this.listingOf(requested), {
      cursor,
      page: byNumber ? Number(page ?? 1) : undefined,
      perPage: Number(per_page ?? DEFAULT_PER_PAGE),
    });
    const response = this.success(result, 200, {
      result_info: {
        count: result.length,
        ...(byNumber ? { page } : {}),
        per_page,
        ...listed.result_info,
        next_cursor: links.next,
        prev_cursor: links.prev,
      },
    });
    const request = this.params?.router?.getRequest(this.args);
    const link = request && linkHeader(request.url, this.cursorFieldName, this.pageFieldName, links);
    if (link) response.headers.set("Link", link);
    return response;
  }

  /** The order a listing follows and the tag its cursors carry: from the route, the order options and the filters. */
  listingOf(filters: ListFilters): { order: ListOrder; tag: string } {
    const { options } = filters;
    const field = options[this.orderByFieldName] as string | undefined;
    const order: ListOrder = {
      field,
      direction: field === undefined ? "asc" : ((options[this.orderByDirectionFieldName] as OrderByDirection) ?? "asc"),
    };
    return { order, tag: listingTag(this.params?.route, order, filters.filters) };
  }

  /**
   * The cursors of the pages around this one, from its first and last objects: `next` when more
   * objects follow, `prev` unless this is the first page. A page left empty (its objects deleted
   * meanwhile) turns the request's cursor around.
   */
  pageCursors(
    listed: ListResult<object>,
    { order, tag }: { order: ListOrder; tag: string },
    { cursor, page, perPage }: { cursor: ListCursor | undefined; page: number | undefined; perPage: number },
  ): { next: string | null; prev: string | null } {
    const rows = listed.result as Record<string, unknown>[];
    const total = listed.result_info?.total_count;
    const first = rows[0];
    const last = rows[rows.length - 1];
    const make = (row: Record<string, unknown> | undefined, direction: ListCursor["direction"]) =>
      row ? this.cursorCodec.encode(row, direction, order, tag) : null;
    if (page !== undefined) {
      const counted = typeof total === "number" ? (page - 1) * perPage + rows.length < total : undefined;
      const more = listed.hasMore ?? counted ?? rows.length >= perPage;
      return { next: more ? make(last, "next") : null, prev: page > 1 ? make(first, "prev") : null };
    }
    const more = listed.hasMore ?? rows.length >= perPage;
    if (!cursor) return { next: more ? make(last, "next") : null, prev: null };
    if (cursor.direction === "next") {
      return { next: more ? make(last, "next") : null, prev: make(first ?? cursor.key, "prev") };
    }
    return { next: make(last ?? cursor.key, "next"), prev: more ? make(first, "prev") : null };
  }
}

export function compileFilterParameters(
  meta: ResolvedMeta,
  filterFields: string[],
  filterOperators: Record<string, FilterOperatorName[]>,
): FilterParameter[] {
  checkFields(meta, filterFields, "filterFields");
  checkFields(meta, Object.keys(filterOperators), "filterOperators");
  const parameters: FilterParameter[] = filterFields.map((field) => ({ key: field, field, operator: "EQ" }));
  for (const [field, names] of Object.entries(filterOperators)) {
    for (const name of names) {
      const operator = OPERATORS[name];
      if (!operator) throw new Error(`Unknown filter operator "${name}" for "${field}"`);
      parameters.push({ key: `${field}__${name}`, field, operator });
    }
  }
  return parameters;
}

function checkFields(meta: ResolvedMeta, names: string[], option: string): void {
  for (const name of names) {
    if (!(name in membersOf(meta.columns))) throw new Error(`${option}: "${name}" is not a field of the model`);
  }
}

/**
 * What one filter parameter accepts, in the field's own type and format (an integer field's `__gte`
 * is an integer, a date field's a date): the field itself, an exploded array of it for `__in`, a
 * boolean for `__isnull`. Query strings are coerced to these types before validation.
 */
export function filterSchema(field: z.ZodType, operator: FilterOperator): z.ZodType {
  if (operator === "ISNULL") return z.boolean().optional();
  // Without the field's default: an absent filter filters nothing. (zod's bare field has none left; the
  // seam cannot unwrap another library's member, which keeps the default its JSON Schema states.)
  const member = withoutDefault(bareField(field));
  if (operator !== "IN") return optionalOf(member);
  // Repeated parameters (`?id__in=1&id__in=2`), as OpenAPI's default for the query says; stated for readers and tools.
  const param = { style: "form", explode: true };
  if (!isZodSchema(member)) return compose.noted(compose.optional(compose.array(member)), { param });
  return z.array(member).optional().meta({ param });
}

export function filterDescription(field: string, operator: FilterOperator): string {
  const words: Record<FilterOperator, string> = {
    EQ: "is equal to this value",
    NE: "is not equal to this value",
    GT: "is greater than this value",
    GTE: "is at least this value",
    LT: "is less than this value",
    LTE: "is at most this value",
    IN: "is one of these values (repeat the parameter for each)",
    LIKE: "is like this value",
    ISNULL: "is null (true) or is not null (false)",
  };
  return `Only objects whose ${field} ${words[operator]}`;
}

/**
 * "asc" or "desc" from any casing; anything else (or nothing) is "asc".
 *
 * @example
 * orderDirectionOf("DESC") // "desc"
 */
export function orderDirectionOf(direction: string | undefined): OrderByDirection {
  const normalized = (direction || "asc").toLowerCase().trim();
  return normalized === "desc" ? "desc" : "asc";
}
