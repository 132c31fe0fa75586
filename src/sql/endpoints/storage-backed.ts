import type { ResponseConfig } from "../../core/schema-types";
import type { ModelEndpoint } from "../../endpoints/base";
import type { ResolvedMeta } from "../../endpoints/meta";
import type { Logger } from "../../endpoints/types";
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

/** An auto endpoint class, with the statics the mixin extends. */
export type EndpointClass = (abstract new (
  ...args: any[]
) => ModelEndpoint) &
  Pick<typeof ModelEndpoint, "configurationFields">;

// The members StorageBacked adds, named: a declaration file cannot spell out the anonymous class itself,
// since it inherits OpenAPIRoute's protected `handleError`.
/**
 * What StorageBacked adds to an auto endpoint over a storage whose databases are `Db` and whose table
 * runs its operations on a `Session`.
 */
export interface StorageBackedMembers<Db, Session, Table extends StorageTable<Session> = StorageTable<Session>> {
  db?: Db;
  dbName?: string;
  constraintsMessages: Record<string, ApiException>;
  logger?: Logger;
  /** @internal The model's table, built once by `prepareRoute()`. */
  storageTable?: Table;
  /** Whether this endpoint reads, writes, or streams (see `databaseAccess` on the class). */
  readonly databaseAccess: DatabaseAccess;
  database(): Db;
  withTable<T>(operation: (table: Table, session: Session) => Promise<T>, write?: string): Promise<T>;
  withWrite<T>(
    write: string,
    operation: (table: Table, session: Session, recording: boolean) => Promise<WriteOutcome<T>>,
  ): Promise<T>;
  liveStorage(db: Db): LiveStorage<Session>;
}

/**
 * Adds a storage to an auto endpoint: the model's table (checked at registration), where the database
 * comes from (`db`, the binding named by `dbName`, else the router's `db` option), and how database
 * errors become HTTP errors. SqlBacked and DrizzleBacked (specroute/drizzle) are the storages: each
 * writes the four protected members below; the five endpoint classes over either come from `stored.ts`.
 */
export function StorageBacked<TBase extends EndpointClass, Db, Session, Table extends StorageTable<Session>>(
  Base: TBase,
): TBase & (abstract new (...args: any[]) => StorageBackedMembers<Db, Session, Table>) {
  abstract class StorageBackedEndpoint extends Base {
    static override readonly configurationFields: readonly string[] = ["constraintsMessages"];

    /** The database; when unset, the binding named by `dbName`, else the router's `db` option. */
    db?: Db;
    /** Name of the environment binding (Workers `env`) holding the database, e.g. a D1 binding. */
    dbName?: string;
    /**
     * Answers for UNIQUE violations keyed `"table.column"` (a fresh copy per request); others answer
     * 409 naming the column.
     */
    constraintsMessages: Record<string, ApiException> = {};
    /** Receives each statement (debug), each successful write (log) and each database failure (error). */
    logger?: Logger;
    /** @internal The model's table, built once by `prepareRoute()`. */
    storageTable?: Table;

    /**
     * How this endpoint uses its database: Create, Update and Delete write, Read and List read, the
     * changes endpoint streams. A storage with replicas (D1's sessions) starts a write on the primary.
     */
    get databaseAccess(): DatabaseAccess {
      return "write";
    }

    /** The model's table over this storage, checked against the model. */
    protected abstract openTable(): Table;
    /** `value` (the endpoint's `db`, the router's `db` option) as a database; `where` names it in the error. */
    protected abstract toDatabase(value: unknown, where: string): Db;
    /** The database of the environment binding `dbName`, whose value is `bound`. */
    protected abstract boundDatabase(bound: unknown): Db;
    /** The session one table operation runs on, sending each statement to the logger's `debug` when there is one. */
    protected abstract openSession(db: Db): Session;

    /** Checks the model against the storage and builds its table once, at registration. */
    override prepareRoute(): void {
      super.prepareRoute();
      this.storageTable = this.openTable();
      if (this.meta.changes && !this.recordsChanges) {
        throw new Error(
          `${this.constructor.name}: live collections (_meta.changes) are not supported on this storage yet`,
        );
      }
    }

    /** Whether this storage can record a live collection's changes (see `liveStorage`). */
    protected get recordsChanges(): boolean {
      return false;
    }

    /**
     * The database for the current request, resolved as the endpoint's own queries resolve it; use it
     * for hand-written statements next to the generated ones.
     */
    database(): Db {
      if (this.db) return this.toDatabase(this.db, "The endpoint's db");
      if (this.dbName) return this.boundDatabase(environment(this, this.args)[this.dbName]);
      const fromRouter = this.params?.router?.options?.db;
      if (fromRouter) return this.toDatabase(fromRouter, "The router's db option");
      throw new Error(`${this.constructor.name} has no database: set db, dbName, or the router's db option`);
    }

    /**
     * The live collection on this storage (the Meta's change feed, the log and broker for `db`, and its
     * transactions): what a write records its changes in and what a changes endpoint reads.
     */
    liveStorage(_db: Db): LiveStorage<Session> {
      throw new Error(`${this.constructor.name}: live collections are not supported on this storage`);
    }

    /**
     * @internal Runs one write, turning database errors into HTTP errors and logging it as `write`. On a
     * live collection (the Meta names a change feed) it runs in one transaction with the changes it
     * reports recorded there (`recording` is then true, so it reads what it needs for them).
     */
    async withWrite<T>(
      write: string,
      operation: (table: Table, session: Session, recording: boolean) => Promise<WriteOutcome<T>>,
    ): Promise<T> {
      if (!this.meta.changes)
        return this.withTable(async (table, session) => (await operation(table, session, false)).result, write);
      const table = this.storageTable!;
      return databaseOperation(
        { tableName: this.meta.model.tableName, logger: this.logger, constraintsMessages: this.constraintsMessages },
        () => recordedWrite(this.liveStorage(this.database()), (session) => operation(table, session, true)),
        write,
      );
    }

    /**
     * @internal Runs one table operation, turning database errors into HTTP errors; `write` names a
     * write ("create", "update", "delete") to log on success and failure.
     */
    async withTable<T>(operation: (table: Table, session: Session) => Promise<T>, write?: string): Promise<T> {
      return databaseOperation(
        { tableName: this.meta.model.tableName, logger: this.logger, constraintsMessages: this.constraintsMessages },
        () => operation(this.storageTable!, this.openSession(this.database())),
        write,
      );
    }
  }
  return StorageBackedEndpoint;
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
export async function databaseOperation<T>(
  endpoint: { tableName: string; logger?: Logger; constraintsMessages: Record<string, ApiException> },
  run: () => Promise<T>,
  write?: string,
): Promise<T> {
  const { logger, tableName } = endpoint;
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
