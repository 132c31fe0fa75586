import type { OpenAPIRouteSchema } from "../../core/schema-types";
import type { ModelEndpoint } from "../../endpoints/base";
import { ApiException, ConflictException, InputValidationException, isApiException } from "../../errors/exceptions";
import type { SqlDriver } from "../driver";
import { type D1DatabaseLike, d1Driver } from "../drivers/d1";
import { DatabaseError, InvalidValueError, UniqueViolationError } from "../errors";
import { SqlTable } from "../table";

type EndpointClass = abstract new (...args: any[]) => ModelEndpoint;

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
  sqlTable?: SqlTable;
  database(): SqlDriver;
  withTable<T>(operation: (table: SqlTable, db: SqlDriver) => Promise<T>): Promise<T>;
}
type SqlBackedClass = abstract new (...args: any[]) => SqlBackedMembers;

/**
 * Adds database access to an auto endpoint: the table (checked against the model at
 * registration), where the database comes from, and how database errors become HTTP errors.
 */
export function SqlBacked<TBase extends EndpointClass>(Base: TBase): TBase & SqlBackedClass {
  abstract class SqlBackedEndpoint extends Base {
    /** The database; when unset, the binding named by `dbName`, else the router's `db` option. */
    db?: SqlDriver;
    /** Name of the environment binding (Workers `env`) holding the database, e.g. a D1 binding. */
    dbName?: string;
    /** Answers for UNIQUE violations keyed `"table.column"`; others answer 409 naming the column. */
    constraintsMessages: Record<string, ApiException> = {};
    /** @internal The model's table, built at registration. */
    sqlTable?: SqlTable;

    override getSchema(): OpenAPIRouteSchema {
      const schema = super.getSchema();
      if (!this.sqlTable) {
        const { model, columns } = this.meta;
        this.sqlTable = new SqlTable(model, { fields: columns });
      }
      return schema;
    }

    /**
     * The driver for the current request, resolved as the endpoint's own queries resolve it; use it
     * for hand-written statements next to the generated ones.
     */
    database(): SqlDriver {
      if (this.db) return toSqlDriver(this.db, "The endpoint's db");
      if (this.dbName) {
        const binding = this.params?.router?.getBindings?.(this.args)?.[this.dbName];
        if (!binding) throw new Error(`No database binding named "${this.dbName}" in the environment`);
        return toSqlDriver(binding, `Binding "${this.dbName}"`);
      }
      const fromRouter = this.params?.router?.options?.db;
      if (fromRouter) return toSqlDriver(fromRouter, "The router's db option");
      throw new Error(`${this.constructor.name} has no database: set db, dbName, or the router's db option`);
    }

    /** @internal Runs one table operation, turning database errors into HTTP errors. */
    async withTable<T>(operation: (table: SqlTable, db: SqlDriver) => Promise<T>): Promise<T> {
      try {
        return await operation(this.sqlTable!, this.database());
      } catch (error) {
        throw toHttpError(error, this.meta.model.tableName, this.constraintsMessages);
      }
    }
  }
  return SqlBackedEndpoint;
}

/** Database errors as HTTP errors: UNIQUE violations as configured or 409, anything else a safe 500. */
function toHttpError(error: unknown, tableName: string, constraintsMessages: Record<string, ApiException>): unknown {
  if (isApiException(error)) return error;
  if (error instanceof InvalidValueError) return new InputValidationException(error.message);
  if (error instanceof UniqueViolationError) {
    const perColumn = error.columns.map((column) => `${tableName}.${column}`);
    const configured = [perColumn.join(", "), ...perColumn].map((key) => constraintsMessages[key]).find(Boolean);
    if (configured) return configured;
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
