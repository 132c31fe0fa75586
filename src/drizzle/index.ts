export type { DrizzleDatabase } from "./dialects";
export {
  DrizzleChangesEndpoint,
  DrizzleCreateEndpoint,
  DrizzleDeleteEndpoint,
  DrizzleListEndpoint,
  DrizzleReadEndpoint,
  DrizzleUpdateEndpoint,
} from "./endpoints";
export { drizzleLiveStorage } from "./live";
export { type ColumnKey, type DrizzleMeta, type DrizzleMetaOptions, type DrizzleModel, drizzleMeta } from "./meta";
export type { DrizzleSession, DrizzleTable } from "./table";
