import Database from "better-sqlite3";

type Row = Record<string, unknown>;

// D1 sends booleans as 1/0 and rejects what it cannot store, as the binding does.
function toD1Value(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) throw new Error("D1_TYPE_ERROR: Type 'undefined' not supported");
  return value;
}

export class Statement {
  constructor(
    private readonly sqlite: Database.Database,
    private readonly sql: string,
    private readonly values: unknown[] = [],
  ) {}

  bind(...values: unknown[]) {
    return new Statement(this.sqlite, this.sql, values.map(toD1Value));
  }

  // D1 numbers its placeholders (?1, ?2, one number used twice); better-sqlite3 takes those by key.
  private args(): unknown[] {
    if (!/\?\d/.test(this.sql)) return this.values;
    return [Object.fromEntries(this.values.map((value, index) => [index + 1, value]))];
  }

  private execute() {
    // The binding answers asynchronously and names SQLite's failure in a D1_ERROR message.
    try {
      const before = this.counters();
      const prepared = this.sqlite.prepare(this.sql);
      const rows = prepared.reader ? (prepared.all(...this.args()) as Row[]) : [];
      if (!prepared.reader) prepared.run(...this.args());
      const after = this.counters();
      // A RETURNING statement reads rows and changes them; D1 reports both.
      return { rows, changes: after.total - before.total, lastRowId: after.lastRowId };
    } catch (error) {
      throw new Error(`D1_ERROR: ${(error as Error).message}: SQLITE_ERROR`, { cause: error });
    }
  }

  private counters() {
    return this.sqlite.prepare("SELECT total_changes() AS total, last_insert_rowid() AS lastRowId").get() as {
      total: number;
      lastRowId: number;
    };
  }

  async all<T = Row>() {
    await Promise.resolve();
    const { rows, changes, lastRowId } = this.execute();
    return { success: true, results: rows as T[], meta: { changes, last_row_id: lastRowId } };
  }

  async run<T = Row>() {
    return this.all<T>();
  }

  async first<T = Row>(column?: string): Promise<T | null> {
    const { results } = await this.all<Row>();
    const row = results[0];
    if (row === undefined) return null;
    return (column === undefined ? row : row[column]) as T;
  }
}

/**
 * A D1 binding over in-memory SQLite, so the same Worker runs on Node with `env.DB`.
 *
 * @example
 * const DB = d1OverSqlite(["CREATE TABLE t (id INTEGER PRIMARY KEY)"]);
 * await DB.prepare("SELECT * FROM t WHERE id = ?1").bind(1).first();
 */
export function d1OverSqlite(schema: string[]): { prepare(sql: string): Statement; close(): void } {
  const sqlite = new Database(":memory:");
  for (const statement of schema) sqlite.exec(statement);
  return {
    prepare: (sql: string) => new Statement(sqlite, sql),
    close: () => sqlite.close(),
  };
}
