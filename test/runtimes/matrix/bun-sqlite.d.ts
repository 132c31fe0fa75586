// The part of Bun's built-in SQLite module the tests use: the repository type-checks against Node's types only.
declare module "bun:sqlite" {
  export class Database {
    constructor(filename?: string);
    prepare(sql: string): {
      all(...params: any[]): unknown[];
      run(...params: any[]): { changes: number; lastInsertRowid: number | bigint };
    };
    exec(sql: string): void;
    close(): void;
  }
}
