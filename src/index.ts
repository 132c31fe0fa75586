import { z } from "zod";
import { extendZodWithOpenApi } from "./openapi/extend-zod";

// chanfana 3 apps call `.openapi({...})` on their schemas; importing specroute makes it available.
extendZodWithOpenApi(z);

export { fromHono, type HonoOpenAPIRouterType, HonoRouter as HonoOpenAPIHandler } from "./adapters/hono";
export {
  fromIttyRouter,
  type IttyOpenAPIRouterType,
  IttyRouter as IttyRouterOpenAPIHandler,
} from "./adapters/itty-router";
export type {
  DocsAssetsOption,
  DocumentContext,
  EnvPredicate,
  ResolvedRouterOptions,
  RouterOptions,
  ValidationFailures,
} from "./adapters/options";
export { validateBasePath } from "./adapters/options";
export type { ServedRoute as RouteEntry } from "./adapters/served-route";
export {
  Arr,
  Bool,
  DateOnly,
  DateTime,
  Email,
  Enumeration,
  Hostname,
  Int,
  Ip,
  Ipv4,
  Ipv6,
  LEGACY_HOSTNAME_PATTERN,
  type LegacyEnumerationOptions,
  type LegacyParameterOptions,
  type LegacyRegexOptions,
  type LegacyShim,
  type LegacyType,
  Num,
  Obj,
  Regex,
  Str,
  Uuid,
} from "./chanfana/legacy-parameters";
export {
  type HttpMethod,
  type IttyRouterOpenAPIRouterType,
  OpenAPIHandler,
  type OpenAPIRouterType,
} from "./chanfana/router-types";
export type { Except, IsEqual, SetOptional, SetRequired, Simplify } from "./chanfana/type-utils";
export {
  type IdempotencyClaim,
  type IdempotencyContext,
  type IdempotencyHold,
  type IdempotencyOptions,
  type IdempotencyPolicy,
  type IdempotencyScopeContext,
  type IdempotencyStore,
  idempotency,
  type StoredAnswer,
} from "./core/ops/idempotency";
export {
  clientIp,
  type RateLimitContext,
  type RateLimitDeclaration,
  type RateLimitOptions,
  type RateLimitOutcome,
  type RateLimitPolicy,
  type RateLimitStore,
  type RateLimitWindow,
  rateLimit,
  type TrustProxy,
} from "./core/ops/rate-limit";
export {
  type MemoryRateLimitOptions,
  memoryRateLimitStore,
  type WorkersRateLimiter,
  workersRateLimitStore,
} from "./core/ops/stores";
export { coerceInputs, type InputEntries } from "./core/request/coerce";
export {
  contentEventStream,
  contentForm,
  contentJson,
  contentJsonLines,
  contentMultipart,
  sseEvent,
} from "./core/request/content";
export { type FileFieldOptions, fileField } from "./core/request/file-field";
export { type SafeFileNameOptions, safeFileName } from "./core/request/safe-file-name";
export type { Serializer } from "./core/route/negotiate";
export { OpenAPIRoute, type OpenAPIRouteClass, type RouteOptions } from "./core/route/open-api-route";
export { jsonResp } from "./core/route/respond";
export type { TraceAttributes, TraceSpan, Tracing } from "./core/route/tracing";
export type {
  AnyZodObject,
  ContentObject,
  MediaTypeConfig,
  OpenAPIRouteSchema,
  PrincipalOf,
  RequestBodyConfig,
  RequestSchema,
  RequestTypes,
  ResponseConfig,
  RouteParameter,
  StreamMediaTypeConfig,
  UnvalidatedData,
  ValidatedData,
  ZodContentObject,
  ZodMediaType,
  ZodRequestBody,
} from "./core/schema-types";
export type {
  AuthContext,
  Authenticator,
  AuthOption,
  SecurityRequirement,
  SecuritySchemeObject,
} from "./core/security/auth";
export {
  type ApiKeyAuthOptions,
  apiKeyAuth,
  type BasicAuthOptions,
  type BasicCredentials,
  type BearerAuthOptions,
  basicAuth,
  bearerAuth,
  type Verify,
} from "./core/security/auth-schemes";
export { constantTimeEqual } from "./core/security/constant-time";
export { type DocsAssetFile, getReDocUI, getSwaggerUI } from "./docs-ui";
export {
  type ChangeEvent,
  ChangesEndpoint,
  CreateEndpoint,
  DEFAULT_PER_PAGE,
  DeleteEndpoint,
  type FilterCondition,
  type FilterOperator,
  type FilterOperatorName,
  type Filters,
  type ListCursor,
  ListEndpoint,
  type ListFilters,
  type ListOptions,
  type ListResult,
  type Logger,
  MAX_PER_PAGE,
  type Meta,
  MetaGenerator,
  type MetaInput,
  type Model,
  type ModelComplete,
  ModelEndpoint,
  metaSchemaProps,
  type O,
  type OrderByDirection,
  type Pagination,
  ReadEndpoint,
  type SerializerContext,
  type UpdatedData,
  UpdateEndpoint,
  type UpdateFilters,
} from "./endpoints";
export { ERROR_CODES, type ErrorName } from "./errors/codes";
export {
  ApiException,
  BadGatewayException,
  ConflictException,
  type ErrorItem,
  errorEnvelopeSchema,
  ForbiddenException,
  GatewayTimeoutException,
  InputValidationException,
  InternalServerErrorException,
  MethodNotAllowedException,
  MultiException,
  NotAcceptableException,
  NotFoundException,
  PayloadTooLargeException,
  PreconditionFailedException,
  PreconditionRequiredException,
  ResponseValidationException,
  ServiceUnavailableException,
  TooManyRequestsException,
  UnauthorizedException,
  UnprocessableEntityException,
  UnsupportedMediaTypeException,
} from "./errors/exceptions";
export { type ErrorFormat, formatChanfanaError, type HandlerZodErrors, renderException } from "./errors/render";
export {
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  durableObjectBroker,
  LiveChangesObject,
} from "./live/durable-object";
export { ChangeFeed, type ChangeFeedOptions, changeFeed } from "./live/feed";
export { pollingBroker } from "./live/polling-broker";
export { type LiveStorage, recordedWrite, type WriteOutcome } from "./live/record";
// The live collection contract, whole: what a change log or broker of an app's own implements (as sql/change-log.ts does).
export type {
  ChangeBroker,
  ChangeKind,
  ChangeLog,
  ChangeRow,
  ChangeToRecord,
  LogBounds,
  RecordedChange,
  Retention,
} from "./live/types";
export { buildDocument } from "./openapi/document";
export { extendZodWithOpenApi } from "./openapi/extend-zod";
export { type ComponentDefinition, type ComponentType, OpenAPIRegistryMerger } from "./openapi/registry";
export type {
  DocumentSchema,
  OpenAPIDocument,
  OpenAPIObjectConfig,
  OpenAPIObjectConfigV31,
  OpenAPIVersion,
} from "./openapi/types";
export {
  type BetterSqlite3Database,
  type BunSqliteDatabase,
  betterSqlite3Driver,
  buildOrderByClause,
  buildPrimaryKeyFilters,
  buildSafeFilters,
  buildWhereClause,
  bunSqliteDriver,
  CHANGE_HEADS_TABLE,
  CHANGES_CHANNEL,
  CHANGES_TABLE,
  changeLogTables,
  changeLogTriggers,
  D1ChangeLog,
  type D1DatabaseLike,
  type D1LiveOptions,
  type D1SessionLike,
  DatabaseError,
  type Dialect,
  d1Driver,
  getD1Binding,
  handleDbError,
  IDEMPOTENCY_TABLE,
  idempotencyTable,
  type Mysql2Queryable,
  mariadbDialect,
  mysql2Driver,
  mysqlDialect,
  type NodeSqliteDatabase,
  nodeSqliteDriver,
  type PGliteLike,
  type PgQueryable,
  pgDriver,
  pgliteDriver,
  postgresBroker,
  postgresDialect,
  RATE_LIMITS_TABLE,
  rateLimitTable,
  type SafeFilters,
  SqlChangeLog,
  type SqlDriver,
  type SqlIdempotencyStore,
  type SqlRateLimitStore,
  type SqlStatement,
  SqlTable,
  sqlIdempotencyStore,
  sqliteDialect,
  sqlLiveStorage,
  sqlRateLimitStore,
  UniqueViolationError,
  validateColumnName,
  validateOrderByColumn,
  validateOrderDirection,
  validateSqlIdentifier,
  validateTableName,
} from "./sql";
export {
  D1ChangesEndpoint,
  D1CreateEndpoint,
  D1DeleteEndpoint,
  D1ListEndpoint,
  D1ReadEndpoint,
  D1UpdateEndpoint,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
  toSqlDriver,
} from "./sql/endpoints";
