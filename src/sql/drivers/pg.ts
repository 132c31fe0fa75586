import { postgresDialect } from "../dialects/postgres";
import type { SqlDriver } from "../driver";
import { ConnectionLock, runTransaction } from "./transaction";
import { bigintAsText } from "./values";

/** The part of a node-postgres `Pool`, `PoolClient` or `Client` this driver uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  /** A Pool's: checks out one client, for a transaction. */
  connect?(): Promise<unknown>;
  end?(): Promise<void>;
}

/** A client checked out of a pool. */
interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
}

function statements(client: PgQueryable): SqlDriver {
  return {
    dialect: postgresDialect,
    async query<T>(sql: string, params: unknown[]) {
      const result = await client.query(sql, params.map(bigintAsText));
      return result.rows as T[];
    },
    async execute(sql, params) {
      const result = await client.query(sql, params.map(bigintAsText));
      return { changes: result.rowCount ?? 0 };
    },
  };
}

// pg's Pool counts its clients; a Client has connect() too, but for itself, once.
function isPool(client: PgQueryable): boolean {
  return typeof client.connect === "function" && "totalCount" in client;
}

/**
 * Driver over a node-postgres pool or client. Note: pg returns BIGINT and NUMERIC as strings;
 * `SqlTable` turns them back into numbers for `z.number()` fields. `transaction()` checks one client
 * out of a Pool; over a single Client it holds that client, other statements waiting for it.
 *
 * @example
 * import pg from "pg"
 * const driver = pgDriver(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 */
export function pgDriver(client: PgQueryable): SqlDriver {
  const shared = statements(client);
  const close = async () => {
    await client.end?.();
  };
  if (isPool(client)) {
    return {
      ...shared,
      async transaction(work) {
        const checkedOut = (await client.connect!()) as PgPoolClient;
        // A client whose ROLLBACK failed goes back to the pool as broken, so the pool drops it.
        let broken: Error | undefined;
        const control = (statement: string) =>
          checkedOut.query(statement).catch((error: unknown) => {
            if (statement === "ROLLBACK") broken = error instanceof Error ? error : new Error(String(error));
            throw error;
          });
        try {
          return await runTransaction(statements(checkedOut), control, work);
        } finally {
          checkedOut.release(broken);
        }
      },
      close,
    };
  }
  const lock = new ConnectionLock();
  return {
    dialect: postgresDialect,
    query: <T>(sql: string, params: unknown[]) => lock.whenFree(() => shared.query<T>(sql, params)),
    execute: (sql, params) => lock.whenFree(() => shared.execute(sql, params)),
    transaction(work) {
      return lock.hold(() => runTransaction(shared, (statement) => client.query(statement), work));
    },
    close,
  };
}
