import {
  ConflictException,
  CreateEndpoint,
  DeleteEndpoint,
  type FilterCondition,
  type Filters,
  ListEndpoint,
  type ListFilters,
  ReadEndpoint,
  UpdateEndpoint,
  type UpdateFilters,
} from "../../src";
import type { CrudBackend } from "./crud.case";

type Row = Record<string, unknown>;

/** An in-memory store written for the tests: one Map per table, keyed by the primary key values. */
class MemoryStore {
  tables = new Map<string, Map<string, Row>>();
  unique: Record<string, string[]> = { projects: ["name"] };

  table(name: string): Map<string, Row> {
    const table = this.tables.get(name) ?? new Map<string, Row>();
    this.tables.set(name, table);
    return table;
  }
}

const store = new MemoryStore();

function keyOf(primaryKeys: string[], row: Row): string {
  return JSON.stringify(primaryKeys.map((key) => row[key]));
}

function matches(row: Row, condition: FilterCondition, searchFields: string[]): boolean {
  const value = row[condition.field];
  const wanted = condition.value as any;
  switch (condition.operator) {
    case "EQ":
      return value === wanted;
    case "NE":
      return value !== wanted;
    case "GT":
      return (value as any) > wanted;
    case "GTE":
      return (value as any) >= wanted;
    case "LT":
      return (value as any) < wanted;
    case "LTE":
      return (value as any) <= wanted;
    case "IN":
      return (wanted as unknown[]).includes(value);
    case "ISNULL":
      return (value === null || value === undefined) === wanted;
    case "LIKE":
      return searchFields.some((field) =>
        String(row[field] ?? "")
          .toLowerCase()
          .includes(String(wanted).toLowerCase()),
      );
  }
}

function findByKey(tableName: string, primaryKeys: string[], filters: Filters): Row | null {
  const key = JSON.stringify(primaryKeys.map((pk) => filters.filters.find((f) => f.field === pk)?.value));
  return store.table(tableName).get(key) ?? null;
}

abstract class MemoryCreate extends CreateEndpoint {
  async create(data: Row) {
    const { tableName, primaryKeys } = this.meta.model;
    const table = store.table(tableName);
    for (const field of store.unique[tableName] ?? []) {
      if ([...table.values()].some((row) => row[field] === data[field])) {
        throw new ConflictException(`${field} already exists`);
      }
    }
    const row: Row = { ...data };
    const generated = primaryKeys.find((key) => row[key] === undefined);
    if (generated) row[generated] = Math.max(0, ...[...table.values()].map((r) => r[generated] as number)) + 1;
    table.set(keyOf(primaryKeys, row), row);
    return { ...row };
  }
}

abstract class MemoryRead extends ReadEndpoint {
  async fetch(filters: Filters) {
    const row = findByKey(this.meta.model.tableName, this.meta.model.primaryKeys, filters);
    return row && { ...row };
  }
}

abstract class MemoryUpdate extends UpdateEndpoint {
  async getObject(filters: UpdateFilters) {
    return findByKey(this.meta.model.tableName, this.meta.model.primaryKeys, filters);
  }
  async update(oldObj: Row, filters: UpdateFilters) {
    Object.assign(oldObj, filters.updatedData);
    return { ...oldObj };
  }
}

abstract class MemoryDelete extends DeleteEndpoint {
  async getObject(filters: Filters) {
    return findByKey(this.meta.model.tableName, this.meta.model.primaryKeys, filters);
  }
  async delete(oldObj: Row) {
    store.table(this.meta.model.tableName).delete(keyOf(this.meta.model.primaryKeys, oldObj));
    return { ...oldObj };
  }
}

abstract class MemoryList extends ListEndpoint {
  async list(filters: ListFilters) {
    let rows = [...store.table(this.meta.model.tableName).values()].filter((row) =>
      filters.filters.every((condition) => matches(row, condition, this.searchFields)),
    );
    // Options are keyed by the parameter names in force (the suite may rename them).
    const options = filters.options;
    const order_by = options[this.orderByFieldName] as string | undefined;
    const order_by_direction = options[this.orderByDirectionFieldName];
    const page = Number(options[this.pageFieldName]);
    const per_page = Number(options[this.perPageFieldName]);
    const keys = [...(order_by ? [order_by] : []), ...this.meta.model.primaryKeys];
    const sign = order_by_direction === "desc" ? -1 : 1;
    rows = rows.sort((a, b) => {
      for (const [i, key] of keys.entries()) {
        const direction = i === 0 && order_by ? sign : 1;
        if ((a[key] as any) < (b[key] as any)) return -direction;
        if ((a[key] as any) > (b[key] as any)) return direction;
      }
      return 0;
    });
    return {
      result: rows.slice((page - 1) * per_page, page * per_page).map((row) => ({ ...row })),
      result_info: { total_count: rows.length },
    };
  }
}

export const memoryBackend: CrudBackend = {
  name: "memory",
  Create: MemoryCreate,
  Read: MemoryRead,
  Update: MemoryUpdate,
  Delete: MemoryDelete,
  List: MemoryList,
  async reset() {
    store.tables.clear();
  },
  async rows(table: string) {
    return [...store.table(table).values()].map((row) => ({ ...row }));
  },
};
