import type { SqlDriver } from "../driver";

/** Transaction control statements as one connection runs them (text protocol where prepared ones are refused). */
export type TransactionControl = (statement: "BEGIN" | "COMMIT" | "ROLLBACK") => Promise<unknown>;

/**
 * Keeps a connection that many callers share to one transaction at a time: while one holds it,
 * statements from outside wait for its end, so none of them slips into the transaction.
 */
export class ConnectionLock {
  #held: Promise<void> | null = null;

  /**
   * Sends a statement from outside any transaction: at once when none holds the connection, else
   * as soon as the holder is done, in the same turn as that check so no transaction begins between.
   */
  whenFree<T>(send: () => Promise<T>): Promise<T> {
    return this.#held ? this.#afterHeld(send) : send();
  }

  /** Runs `work` holding the connection alone; later holders queue behind it. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    let release!: () => void;
    this.#held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      return await work();
    } finally {
      this.#held = null;
      release();
    }
  }

  async #afterHeld<T>(send: () => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    return send();
  }
}

/**
 * Runs `work` between BEGIN and COMMIT on one connection (`connection` sends statements to it),
 * rolling back and rethrowing when `work` or the COMMIT fails. `work` gets a driver that refuses
 * statements once the transaction is over and joins it when asked for a nested transaction.
 */
export async function runTransaction<T>(
  connection: SqlDriver,
  control: TransactionControl,
  work: (tx: SqlDriver) => Promise<T>,
): Promise<T> {
  let open = true;
  const assertOpen = () => {
    if (!open) throw new Error("This transaction is over: run statements on the driver, not on its old tx");
  };
  const tx: SqlDriver = {
    dialect: connection.dialect,
    async query<R>(sql: string, params: unknown[]) {
      assertOpen();
      return connection.query<R>(sql, params);
    },
    async execute(sql, params) {
      assertOpen();
      return connection.execute(sql, params);
    },
    transaction: (nested) => nested(tx),
  };
  await control("BEGIN");
  try {
    const result = await work(tx);
    await control("COMMIT");
    return result;
  } catch (error) {
    // After a failed COMMIT some engines keep the transaction open (SQLite when busy): end it either way.
    await control("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    open = false;
  }
}
