import { DEFAULT_PER_PAGE, type ListEndpoint, orderDirectionOf } from "../../endpoints/list";
import type { ListCursor, ListFilters, ListResult } from "../../endpoints/types";
import type { ListPage, ListQuery, SeekPage, SeekQuery, SqlRow } from "../storage";

/** A table's two ways of reading a page: by offset with a count, or by keyset from a position. */
export interface PagedTable {
  list(query: ListQuery): Promise<ListPage>;
  seek(query: SeekQuery): Promise<SeekPage>;
}

/**
 * One page of a list request over a table: the request's options (keyed by the parameter names in
 * force), its search and filters, then a keyset page (cursor requests, no count) or a counted page by
 * number. The SQL and the Drizzle list endpoints share it.
 */
export async function listPage(
  endpoint: ListEndpoint,
  filters: ListFilters,
  table: PagedTable,
): Promise<ListResult<SqlRow>> {
  const { options } = filters;
  const page = Number(options[endpoint.pageFieldName] ?? 1);
  const per_page = Math.min(Number(options[endpoint.perPageFieldName] ?? DEFAULT_PER_PAGE), endpoint.maxPerPage);
  const order_by = options[endpoint.orderByFieldName] as string | undefined;
  const order_by_direction = orderDirectionOf(options[endpoint.orderByDirectionFieldName] as string | undefined);
  const search = filters.filters.find((condition) => condition.operator === "LIKE");
  const where = {
    filters: filters.filters.filter((condition) => condition.operator !== "LIKE"),
    search: search ? { columns: endpoint.searchFields, term: String(search.value) } : undefined,
    orderBy: order_by ? { column: order_by, direction: order_by_direction } : undefined,
  };
  const cursor = options[endpoint.cursorFieldName] as ListCursor | undefined;
  if (endpoint.pagination === "cursor" || (endpoint.pagination === "both" && cursor)) {
    const seek = await table.seek({
      ...where,
      limit: per_page,
      from: cursor && { direction: cursor.direction, key: cursor.key },
    });
    return { result: seek.rows, hasMore: seek.hasMore, result_info: { per_page } };
  }
  const listed = await table.list({
    ...where,
    limit: per_page,
    // A page far past any table (page=9007199254740991) is an empty page, not an unsafe offset.
    offset: Math.min((page - 1) * per_page, Number.MAX_SAFE_INTEGER),
    keysetOrder: endpoint.pagination === "both",
  });
  return { result: listed.rows, result_info: { page, per_page, total_count: listed.totalCount } };
}
