import type { ResponseConfig } from "../../core/schema-types";
import type { ModelEndpoint, ModelStorage } from "../../endpoints/base";
import type { ResolvedMeta } from "../../endpoints/meta";
import {
  ApiException,
  ConflictException,
  freshException,
  InputValidationException,
  isApiException,
} from "../../errors/exceptions";
import { type LiveStorage, recordedWrite, type WriteOutcome } from "../../live/record";
import { membersOf } from "../../schema";
import { DatabaseError, InvalidValueError, UniqueViolationError } from "../errors";
import type { StorageTable } from "../storage";

/**
 * How an endpoint uses its database: a read may be answered by a replica, a write starts on the primary,
 * a stream (the changes endpoint) keeps reading after its headers are sent, so it opens no session.
 */
export type DatabaseAccess = "read" | "write" | "stream";

/** An auto endpoint over a table storage, as its storage sees it (the six classes of `stored.ts`). */
export interface StoredEndpoint extends ModelEndpoint {
  /** Whether this endpoint reads, writes, or streams. */
  readonly databaseAccess: DatabaseAccess;
}

/** What one storage (SQL text, Drizzle) writes for itself; {@link tableStorage} makes the rest. */
export interface StorageParts<Db, Session, Table extends StorageTable<Session>> {
  /** The model's table over this storage, checked against the model. */
  openTable(endpoint: StoredEndpoint): Table;
  /** `value` (the endpoint's `db`, the router's `db` option) as a database; `where` names it in the error. */
  toDatabase(endpoint: StoredEndpoint, value: unknown, where: string): Db;
  /** The database of the environment binding `dbName`, whose value is `bound`. */
  boundDatabase(endpoint: StoredEndpoint, bound: unknown): Db;
  /** The session one table operation runs on, sending each statement to the logger's `debug` when there is one. */
  openSession(endpoint: StoredEndpoint, db: Db): Session;
  /**
   * The live collection on `db` (the Meta's change feed, the log and broker for `db`, and its
   * transactions): what a write records its changes in and what a changes endpoint reads.
   */
  liveStorage(endpoint: StoredEndpoint, db: Db): LiveStorage<Session>;
  /** Runs one table operation on its session, when the storage must put something around it. */
  around?<T>(session: Session, operation: () => Promise<T>): Promise<T>;
  describe?: ModelStorage["describe"];
  answered?: ModelStorage["answered"];
}

/** A storage as an auto endpoint holds it: its parts, and the steps every storage runs the same way. */
export interface TableStorage<
  Db = unknown,
  Session = unknown,
  Table extends StorageTable<Session> = StorageTable<Session>,
> extends ModelStorage,
    Omit<StorageParts<Db, Session, Table>, "describe" | "answered"> {
  database(endpoint: ModelEndpoint): Db;
  /** The route's table, built at registration. */
  table(endpoint: ModelEndpoint): Table;
  /**
   * Runs one table operation, turning database errors into HTTP errors; `write` names a write
   * ("create", "update", "delete") to log on success and failure.
   */
  withTable<T>(
    endpoint: StoredEndpoint,
    operation: (table: Table, session: Session) => Promise<T>,
    write?: string,
  ): Promise<T>;
  /**
   * Runs one write, turning database errors into HTTP errors and logging it as `write`. On a live
   * collection (the Meta names a change feed) it runs in one transaction with the changes it reports
   * recorded there (`recording` is then true, so it reads what it needs for them).
   */
  withWrite<T>(
    endpoint: StoredEndpoint,
    write: string,
    operation: (table: Table, session: Session, recording: boolean) => Promise<WriteOutcome<T>>,
  ): Promise<T>;
}

/**
 * A storage for the auto endpoints from what it writes for itself: where the database comes from (`db`,
 * the binding named by `dbName`, else the router's `db` option), the table checked at registration, and
 * how database errors become HTTP errors, the same for every storage. Frozen: every route shares it.
 */
export function tableStorage<Db, Session, Table extends StorageTable<Session>>(
  parts: StorageParts<Db, Session, Table>,
): TableStorage<Db, Session, Table> {
  const around = parts.around ?? ((_session, operation) => operation());
  const storage: TableStorage<Db, Session, Table> = {
    ...parts,
    around,
    prepare(endpoint) {
      endpoint.storageTable = parts.openTable(endpoint as StoredEndpoint);
    },
    table(endpoint) {
      return endpoint.storageTable as Table;
    },
    database(endpoint) {
      const stored = endpoint as StoredEndpoint;
      if (endpoint.db) return parts.toDatabase(stored, endpoint.db, "The endpoint's db");
      if (endpoint.dbName) return parts.boundDatabase(stored, environment(endpoint, endpoint.args)[endpoint.dbName]);
      const fromRouter = endpoint.params?.router?.options?.db;
      if (fromRouter) return parts.toDatabase(stored, fromRouter, "The router's db option");
      throw new Error(`${endpoint.constructor.name} has no database: set db, dbName, or the router's db option`);
    },
    withTable(endpoint, operation, write) {
      return databaseOperation(
        endpoint,
        () => {
          const session = parts.openSession(endpoint, endpoint.database() as Db);
          return around(session, () => operation(storage.table(endpoint), session));
        },
        write,
      );
    },
    withWrite(endpoint, write, operation) {
      if (!endpoint.meta.changes)
        return storage.withTable(
          endpoint,
          async (table, session) => (await operation(table, session, false)).result,
          write,
        );
      const table = storage.table(endpoint);
      return databaseOperation(
        endpoint,
        () =>
          recordedWrite(parts.liveStorage(endpoint, endpoint.database() as Db), (session) =>
            operation(table, session, true),
          ),
        write,
      );
    },
  };
  return Object.freeze(storage);
}

/** The router's bindings (Workers `env`) for a request's handler arguments. */
export function environment(endpoint: ModelEndpoint, args: any[]): Record<string, any> {
  return endpoint.params?.router?.getBindings(args) ?? {};
}

/**
 * Runs one database operation of an endpoint, turning database errors into HTTP errors; `write` names
 * a write ("create", "createMany", "update", "delete") to log on success. Failures are logged at
 * `error` with the engine's message.
 */
async function databaseOperation<T>(endpoint: ModelEndpoint, run: () => Promise<T>, write?: string): Promise<T> {
  const { logger } = endpoint;
  const { tableName } = endpoint.meta.model;
  try {
    const result = await run();
    if (logger && write) logger.log(`Successfully ${WRITE_LOG[write]} ${tableName}`);
    return result;
  } catch (error) {
    if (logger && !isApiException(error)) {
      logger.error(`Database error during ${write ?? "query"} ${tableName}: ${causeMessage(error)}`);
    }
    throw toHttpError(error, tableName, endpoint.constraintsMessages);
  }
}

/** The success log lines of chanfana's D1 endpoints, by write. */
const WRITE_LOG: Record<string, string> = {
  create: "created record in",
  createMany: "created records in",
  update: "updated record in",
  delete: "deleted record from",
};

/** The engine's message behind a wrapped database error, for the log only. */
function causeMessage(error: unknown): string {
  const cause = error instanceof DatabaseError ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * What a Create answers for duplicates: a primary key the body may carry collides with a stored row as
 * a value of one of the model's `unique` columns does.
 */
export function createConflicts(
  meta: ResolvedMeta,
  pathKeys: string[],
  constraintsMessages: Record<string, ApiException>,
): Record<string, ResponseConfig> {
  const { model, fields } = meta;
  const sentKeys = model.primaryKeys.filter((key) => key in membersOf(fields) && !pathKeys.includes(key));
  return uniqueConflicts({ tableName: model.tableName, unique: [...sentKeys, ...model.unique] }, constraintsMessages);
}

/**
 * What a write answers for a duplicate value in one of the model's `unique` columns, by status: the
 * configured `constraintsMessages` answer for that column, else 409.
 */
export function uniqueConflicts(
  model: { tableName: string; unique: string[] },
  constraintsMessages: Record<string, ApiException>,
): Record<string, ResponseConfig> {
  const responses: Record<string, ResponseConfig> = {};
  for (const column of model.unique) {
    const configured = constraintsMessages[`${model.tableName}.${column}`];
    if (!configured) {
      Object.assign(responses, ConflictException.schema());
      continue;
    }
    const [config] = Object.values((configured.constructor as typeof ApiException).schema());
    responses[String(configured.status)] ??= { ...config!, description: configured.message };
  }
  return responses;
}

/** Database errors as HTTP errors: UNIQUE violations as configured or 409, anything else a safe 500. */
function toHttpError(error: unknown, tableName: string, constraintsMessages: Record<string, ApiException>): unknown {
  if (isApiException(error)) return error;
  if (error instanceof InvalidValueError) return new InputValidationException(error.message);
  if (error instanceof UniqueViolationError) {
    const perColumn = error.columns.map((column) => `${tableName}.${column}`);
    const keys = [perColumn.join(", "), ...perColumn, ...(error.constraint ? [error.constraint] : [])];
    const configured = keys.map((key) => constraintsMessages[key]).find(Boolean);
    if (configured) return freshException(configured);
    const named = error.columns.length > 0 ? error.columns.join(", ") : "unique value";
    return new ConflictException(`An object with this ${named} already exists`);
  }
  if (error instanceof DatabaseError) {
    // The cause keeps the driver's error for the log line (with a request id) the router writes.
    const exception = new ApiException("Database operation failed", { cause: error });
    exception.isVisible = true;
    return exception;
  }
  return error;
}
