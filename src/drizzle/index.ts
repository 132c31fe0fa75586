export type { DrizzleDatabase } from "./dialects";
export {
  DrizzleBacked,
  type DrizzleBackedMembers,
  DrizzleCreateEndpoint,
  DrizzleDeleteEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
} from "./endpoints";
export { type ColumnKey, type DrizzleMeta, type DrizzleMetaOptions, type DrizzleModel, drizzleMeta } from "./meta";
export type { DrizzleSession, DrizzleTable } from "./table";
