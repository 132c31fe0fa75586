import { z } from "zod";
import type { OpenAPIRouteSchema } from "../core/schema-types";
import { ModelEndpoint } from "./base";
import type { ResolvedMeta } from "./meta";
import { bareField } from "./schema-helpers";
import type { FilterCondition, FilterOperator, ListFilters, ListOptions, ListResult, OrderByDirection } from "./types";

/** Opt-in comparison operators a list filter can offer, as `field__gt=…` query parameters. */
export type FilterOperatorName = "gt" | "gte" | "lt" | "lte" | "in" | "ne";

const OPERATORS: Record<FilterOperatorName, FilterOperator> = {
  gt: "GT",
  gte: "GTE",
  lt: "LT",
  lte: "LTE",
  in: "IN",
  ne: "NE",
};

/** Which model field and comparison one query parameter stands for. */
interface FilterParameter {
  key: string;
  field: string;
  operator: FilterOperator;
}

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

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
    ...ModelEndpoint.configurationFields,
    "filterFields",
    "filterOperators",
    "searchFields",
    "orderByFields",
  ];

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

  /** @internal Query parameters that are filters, compiled once by `prepareRoute()`. */
  preparedFilterParameters: FilterParameter[] | undefined = undefined;

  readonly identifiesObject = false;

  /** @internal Type-only: the kind of auto endpoint, which the typed clients derive its request and answers from. */
  declare readonly "~crud": "list";

  /** The four option parameter names in force (never filters). */
  get optionFields(): string[] {
    return [this.pageFieldName, this.perPageFieldName, this.orderByFieldName, this.orderByDirectionFieldName];
  }

  /** Query parameters that are filters. */
  get filterParameters(): FilterParameter[] {
    return this.preparedFilterParameters ?? compileFilterParameters(this.meta, this.filterFields, this.filterOperators);
  }

  override prepareRoute(): void {
    super.prepareRoute();
    this.preparedFilterParameters = compileFilterParameters(this.meta, this.filterFields, this.filterOperators);
  }

  deriveSchema(meta: ResolvedMeta): OpenAPIRouteSchema {
    const perPageLimit = Math.max(MAX_PER_PAGE, this.maxPerPage);
    const shape: Record<string, z.ZodType> = {};
    const add = (key: string, schema: z.ZodType) => {
      if (key in shape) throw new Error(`List query parameter "${key}" is declared twice: rename a field option`);
      shape[key] = schema;
    };
    add(this.pageFieldName, z.number().int().min(1).default(1).describe("Page number, from 1"));
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
      const member = bareField(meta.columns.shape[field]!);
      add(key, (operator === "IN" ? z.array(member) : member).optional().describe(filterDescription(field, operator)));
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
    return this.describeEndpoint({
      status: "200",
      description: "A page of objects",
      request: { query: z.object(shape) },
      result: z.array(meta.model.serializerSchema),
      envelope: {
        result_info: z.object({
          count: z.number().int(),
          page: z.number().int(),
          per_page: z.number().int(),
          total_count: z.number().int().optional(),
        }),
      },
    });
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
    return { filters, options };
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
    const filters = await this.before(await this.getFilters());
    const listed = await this.after(await this.list(filters));
    const context = { filters: filters.filters, options: filters.options };
    const result = listed.result.map((obj) => this.serialize(obj, context));
    const page = filters.options[this.pageFieldName];
    const per_page = filters.options[this.perPageFieldName];
    return this.success(result, 200, {
      result_info: { count: result.length, page, per_page, ...listed.result_info },
    });
  }
}

function compileFilterParameters(
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
    if (!(name in meta.columns.shape)) throw new Error(`${option}: "${name}" is not a field of the model`);
  }
}

function filterDescription(field: string, operator: FilterOperator): string {
  const words: Record<FilterOperator, string> = {
    EQ: "equal to",
    NE: "not equal to",
    GT: "greater than",
    GTE: "at least",
    LT: "less than",
    LTE: "at most",
    IN: "one of (repeat the parameter)",
    LIKE: "like",
  };
  return `Only objects whose ${field} is ${words[operator]} this value`;
}
