import type { ResponseConfig } from "../../core/schema-types";
import type { ModelEndpoint } from "../../endpoints/base";
import type { ResolvedMeta } from "../../endpoints/meta";
import type { Logger } from "../../endpoints/types";
import { ApiException, ConflictException, InputValidationException, isApiException } from "../../errors/exceptions";
import { freshException, getD1Binding } from "../d1-helpers";
import type { SqlDriver } from "../driver";
import { type D1DatabaseLike, d1Driver } from "../drivers/d1";
import { DatabaseError, InvalidValueError, UniqueViolationError } from "../errors";
import { SqlTable } from "../table";

/** An auto endpoint class, with the statics the mixin extends. */
type EndpointClass = (abstract new (
  ...args: any[]
) => ModelEndpoint) &
  Pick<typeof ModelEndpoint, "configurationFields">;

// One driver per D1 binding object, so a request does not wrap the same binding again.
const d1Drivers = new WeakMap<object, SqlDriver>();

function isDriver(value: unknown): value is SqlDriver {
  return typeof value === "object" && value !== null && "dialect" in value && "query" in value && "execute" in value;
}

/**
 * The SqlDriver for a value that is one already or a Cloudflare D1 binding (wrapped once per binding).
 *
 * @example
 * const rows = await toSqlDriver(c.env.DB).query("SELECT COUNT(*) AS n FROM tasks", []);
 */
export function toSqlDriver(value: unknown, where = "The database"): SqlDriver {
  if (isDriver(value)) return value;
  if (typeof value === "object" && value !== null && typeof (value as D1DatabaseLike).prepare === "function") {
    let driver = d1Drivers.get(value);
    if (!driver) {
      driver = d1Driver(value as D1DatabaseLike);
      d1Drivers.set(value, driver);
    }
    return driver;
  }
  throw new Error(`${where} is not a SQL driver or a D1 binding`);
}

// The members SqlBacked adds, named: a declaration file cannot spell out the anonymous class itself,
// since it inherits OpenAPIRoute's protected `handleError`.
/** What SqlBacked adds to an auto endpoint. */
export interface SqlBackedMembers {
  db?: SqlDriver;
  dbName?: string;
  constraintsMessages: Record<string, ApiException>;
  logger?: Logger;
  sqlTable?: SqlTable;
  getDBBinding(): D1DatabaseLike;
  database(): SqlDriver;
  withTable<T>(operation: (table: SqlTable, db: SqlDriver) => Promise<T>, write?: string): Promise<T>;
}
type SqlBackedClass = abstract new (...args: any[]) => SqlBackedMembers;

/** The router's bindings (Workers `env`) for a request's handler arguments. */
export function environment(endpoint: ModelEndpoint, args: any[]): Record<string, any> {
  return endpoint.params?.router?.getBindings(args) ?? {};
}

/** `driver`, with each statement sent to `logger.debug` first (as chanfana's D1 endpoints log their SQL). */
function loggingDriver(driver: SqlDriver, logger: Logger, label: string): SqlDriver {
  const log = (sql: string, params: unknown[]) => logger.debug?.(`[${label}] SQL: ${sql}`, params);
  const logged: SqlDriver = {
    dialect: driver.dialect,
    query(sql, params) {
      log(sql, params);
      return driver.query(sql, params);
    },
    execute(sql, params) {
      log(sql, params);
      return driver.execute(sql, params);
    },
  };
  if (driver.transaction) {
    const transaction = driver.transaction.bind(driver);
    logged.transaction = (work) => transaction((tx) => work(loggingDriver(tx, logger, label)));
  }
  if (driver.batch) {
    const batch = driver.batch.bind(driver);
    logged.batch = (statements) => {
      for (const statement of statements) log(statement.sql, statement.params);
      return batch(statements);
    };
  }
  return logged;
}

/**
 * Adds database access to an auto endpoint: the table (checked against the model at
 * registration), where the database comes from, and how database errors become HTTP errors.
 */
export function SqlBacked<TBase extends EndpointClass>(Base: TBase): TBase & SqlBackedClass {
  abstract class SqlBackedEndpoint extends Base {
    static override readonly configurationFields: readonly string[] = ["constraintsMessages"];

    /** The database; when unset, the binding named by `dbName`, else the router's `db` option. */
    db?: SqlDriver;
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
    sqlTable?: SqlTable;

    /** Checks the model against SQL identifiers and builds its table once, at registration. */
    override prepareRoute(): void {
      super.prepareRoute();
      const { model, columns } = this.meta;
      this.sqlTable = new SqlTable(model, { fields: columns, keepReadValues: this.conditional });
    }

    /**
     * The D1 binding named by `dbName` from the environment (ApiException when missing or not D1);
     * override it to choose the database per request, as in chanfana.
     *
     * @example
     * getDBBinding() { return this.params.router.getBindings(this.args).REPLICA; }
     */
    getDBBinding(): D1DatabaseLike {
      return getD1Binding((args) => environment(this, args), this.args, this.dbName ?? "");
    }

    /**
     * The driver for the current request, resolved as the endpoint's own queries resolve it; use it
     * for hand-written statements next to the generated ones.
     */
    database(): SqlDriver {
      if (this.db) return toSqlDriver(this.db, "The endpoint's db");
      if (this.dbName) {
        // A SqlDriver placed in the environment is specroute's own; anything else goes through getDBBinding().
        const bound = environment(this, this.args)[this.dbName];
        return isDriver(bound) ? bound : toSqlDriver(this.getDBBinding(), `Binding "${this.dbName}"`);
      }
      const fromRouter = this.params?.router?.options?.db;
      if (fromRouter) return toSqlDriver(fromRouter, "The router's db option");
      throw new Error(`${this.constructor.name} has no database: set db, dbName, or the router's db option`);
    }

    /**
     * @internal Runs one table operation, turning database errors into HTTP errors; `write` names a
     * write ("create", "update", "delete") to log on success and failure.
     */
    async withTable<T>(operation: (table: SqlTable, db: SqlDriver) => Promise<T>, write?: string): Promise<T> {
      const { logger } = this;
      return databaseOperation(
        { tableName: this.meta.model.tableName, logger, constraintsMessages: this.constraintsMessages },
        () => {
          const db = this.database();
          return operation(this.sqlTable!, logger ? loggingDriver(db, logger, this.constructor.name) : db);
        },
        write,
      );
    }
  }
  return SqlBackedEndpoint;
}

/**
 * Runs one database operation of an endpoint, turning database errors into HTTP errors; `write` names
 * a write ("create", "createMany", "update", "delete") to log on success. Failures are logged at
 * `error` with the engine's message. The SQL and the Drizzle endpoints share it.
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
  const sentKeys = model.primaryKeys.filter((key) => key in fields.shape && !pathKeys.includes(key));
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
