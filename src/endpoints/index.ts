export { ModelEndpoint } from "./base";
export { type ChangeEvent, ChangesEndpoint } from "./changes";
export { CreateEndpoint } from "./create";
export type { Pagination } from "./cursor";
export { DeleteEndpoint } from "./delete";
export { DEFAULT_PER_PAGE, type FilterOperatorName, ListEndpoint, MAX_PER_PAGE } from "./list";
export { MetaGenerator, metaSchemaProps, type ResolvedMeta, resolveMeta } from "./meta";
export { ReadEndpoint } from "./read";
export type {
  FilterCondition,
  FilterOperator,
  Filters,
  ListCursor,
  ListFilters,
  ListOptions,
  ListResult,
  Logger,
  Meta,
  MetaInput,
  Model,
  ModelComplete,
  O,
  OrderByDirection,
  SerializerContext,
  UpdatedData,
  UpdateFilters,
} from "./types";
export { UpdateEndpoint } from "./update";
