// The SQLite case: 10k tasks in an in-memory better-sqlite3 database, and the SQL every app runs on it.
import Database from "better-sqlite3";
import { STATUSES, TASK_COUNT } from "./tasks.js";

const COLUMNS = ["id", "title", "assignee", "priority", "done", "status"];

/** `%term%` with LIKE's wildcards taken literally (escape character `!`). */
function containsPattern(term) {
  return `%${term.replace(/[!%_]/g, (char) => `!${char}`)}%`;
}

function decodeRow(row) {
  return { ...row, done: row.done === 1 };
}

/** A `tasks` table of `rows` rows; titles of even ids contain "foo", odd ones "bar". */
export class TaskStore {
  #statements = new Map();

  constructor(rows = TASK_COUNT) {
    this.db = new Database(":memory:");
    this.db.exec(`CREATE TABLE tasks (
      id INTEGER PRIMARY KEY, title TEXT NOT NULL, assignee TEXT NOT NULL,
      priority INTEGER NOT NULL, done INTEGER NOT NULL, status TEXT NOT NULL);
      CREATE INDEX tasks_status ON tasks (status);`);
    const insert = this.db.prepare("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)");
    this.db.transaction(() => {
      for (let id = 1; id <= rows; id++) {
        const title = `Task ${id} ${id % 2 === 0 ? "foo" : "bar"}`;
        insert.run(id, title, `user${id % 50}@example.com`, (id % 5) + 1, id % 4 === 0 ? 1 : 0, STATUSES[id % 3]);
      }
    })();
  }

  /**
   * Hand-written listing, as the bare-Hono baseline writes it: optional status and title search.
   * Answers the envelope of a List endpoint.
   */
  listTasks({ page, per_page, status, search, order_by = "id", order_by_direction = "asc" }) {
    const where = [];
    const params = [];
    if (status !== undefined) {
      where.push("status = ?");
      params.push(status);
    }
    if (search !== undefined) {
      where.push("title LIKE ? ESCAPE '!'");
      params.push(containsPattern(search));
    }
    return { success: true, ...this.#page(where, params, { page, per_page, order_by, order_by_direction }) };
  }

  /**
   * Listing from a List endpoint's filters (`{ field, operator, value }`, search as a LIKE condition named
   * `searchFieldName`) and options, as an SQL-backed auto endpoint would run it. Answers `{ result, result_info }`.
   */
  listByFilters(filters, options, { searchFields, searchFieldName = "search" }) {
    const where = [];
    const params = [];
    for (const { field, operator, value } of filters) {
      if (operator === "LIKE" && field === searchFieldName) {
        where.push(`(${searchFields.map((column) => `${this.#column(column)} LIKE ? ESCAPE '!'`).join(" OR ")})`);
        for (const _ of searchFields) params.push(containsPattern(String(value)));
      } else if (operator === "EQ") {
        where.push(`${this.#column(field)} = ?`);
        params.push(typeof value === "boolean" ? Number(value) : value);
      } else {
        throw new Error(`Operator ${operator} is not supported by this benchmark store`);
      }
    }
    return this.#page(where, params, {
      page: options.page,
      per_page: options.per_page,
      order_by: this.#column(options.order_by ?? "id"),
      order_by_direction: options.order_by_direction,
    });
  }

  #page(where, params, { page, per_page, order_by, order_by_direction }) {
    const whereSql = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
    const direction = order_by_direction === "desc" ? "DESC" : "ASC";
    const order = order_by === "id" ? `id ${direction}` : `${order_by} ${direction}, id ASC`;
    const rows = this.#statement(
      `SELECT ${COLUMNS.join(", ")} FROM tasks${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`,
    ).all(...params, per_page, (page - 1) * per_page);
    const { total } = this.#statement(`SELECT COUNT(*) AS total FROM tasks${whereSql}`).get(...params);
    const result = rows.map(decodeRow);
    return { result, result_info: { count: result.length, page, per_page, total_count: total } };
  }

  #column(name) {
    if (!COLUMNS.includes(name)) throw new Error(`Unknown column ${name}`);
    return name;
  }

  /** Prepared once per distinct SQL text, as any driver with a statement cache does. */
  #statement(sql) {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  close() {
    this.db.close();
  }
}
