import { describe, expect, it } from "vitest";
import {
  changeLogTables,
  type Dialect,
  idempotencyTable,
  mariadbDialect,
  mysqlDialect,
  postgresDialect,
  rateLimitTable,
  sqliteDialect,
} from "../../src/sql";

// Apps copy these statements into their migrations: each engine's text is pinned byte for byte.
const SQLITE = {
  log: [
    'CREATE TABLE IF NOT EXISTS "specroute_changes" ("collection" TEXT NOT NULL, "seq" INTEGER NOT NULL, "kind" TEXT NOT NULL, "row" TEXT NOT NULL, "before" TEXT, "at" INTEGER NOT NULL, PRIMARY KEY ("collection", "seq")) WITHOUT ROWID',
    'CREATE TABLE IF NOT EXISTS "specroute_change_heads" ("collection" TEXT NOT NULL PRIMARY KEY, "seq" INTEGER NOT NULL)',
  ],
  idempotency:
    'CREATE TABLE IF NOT EXISTS "specroute_idempotency" ("idem_key" TEXT NOT NULL PRIMARY KEY, "fingerprint" VARCHAR(64) NOT NULL, "status" INTEGER, "answer" TEXT, "expires_at" INTEGER NOT NULL)',
  rateLimits:
    'CREATE TABLE IF NOT EXISTS "specroute_rate_limits" ("bucket" TEXT NOT NULL PRIMARY KEY, "window_start" INTEGER NOT NULL, "hits" INTEGER NOT NULL)',
};
const POSTGRES = {
  log: [
    'CREATE TABLE IF NOT EXISTS "specroute_changes" ("collection" TEXT NOT NULL, "seq" BIGINT NOT NULL, "kind" TEXT NOT NULL, "row" TEXT NOT NULL, "before" TEXT, "at" BIGINT NOT NULL, PRIMARY KEY ("collection", "seq"))',
    'CREATE TABLE IF NOT EXISTS "specroute_change_heads" ("collection" TEXT NOT NULL PRIMARY KEY, "seq" BIGINT NOT NULL)',
  ],
  idempotency:
    'CREATE TABLE IF NOT EXISTS "specroute_idempotency" ("idem_key" TEXT NOT NULL PRIMARY KEY, "fingerprint" VARCHAR(64) NOT NULL, "status" INTEGER, "answer" TEXT, "expires_at" BIGINT NOT NULL)',
  rateLimits:
    'CREATE TABLE IF NOT EXISTS "specroute_rate_limits" ("bucket" TEXT NOT NULL PRIMARY KEY, "window_start" BIGINT NOT NULL, "hits" BIGINT NOT NULL)',
};
const MYSQL = {
  log: [
    "CREATE TABLE IF NOT EXISTS `specroute_changes` (`collection` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, `seq` BIGINT NOT NULL, `kind` VARCHAR(16) NOT NULL, `row` LONGTEXT NOT NULL, `before` LONGTEXT, `at` BIGINT NOT NULL, PRIMARY KEY (`collection`, `seq`)) ENGINE=InnoDB",
    "CREATE TABLE IF NOT EXISTS `specroute_change_heads` (`collection` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, `seq` BIGINT NOT NULL) ENGINE=InnoDB",
  ],
  idempotency:
    "CREATE TABLE IF NOT EXISTS `specroute_idempotency` (`idem_key` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, `fingerprint` VARCHAR(64) NOT NULL, `status` INTEGER, `answer` LONGTEXT, `expires_at` BIGINT NOT NULL) ENGINE=InnoDB",
  rateLimits:
    "CREATE TABLE IF NOT EXISTS `specroute_rate_limits` (`bucket` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, `window_start` BIGINT NOT NULL, `hits` BIGINT NOT NULL) ENGINE=InnoDB",
};

const engines: Array<[Dialect, typeof SQLITE]> = [
  [sqliteDialect, SQLITE],
  [postgresDialect, POSTGRES],
  [mysqlDialect, MYSQL],
  [mariadbDialect, MYSQL],
];

describe("the DDL of specroute's own tables, for migrations", () => {
  for (const [dialect, expected] of engines) {
    it(`writes the change log's, the idempotency keys' and the rate limits' tables on ${dialect.name} as it always has`, () => {
      expect(changeLogTables(dialect)).toEqual(expected.log);
      expect(idempotencyTable(dialect)).toBe(expected.idempotency);
      expect(rateLimitTable(dialect)).toBe(expected.rateLimits);
    });
  }
});

describe("a dialect without the words of specroute's own tables", () => {
  // A dialect of the app's own, as the Dialect interface allows: without `tables` and `upsert` the stores cannot write it.
  const { tables: _tables, upsert: _upsert, ...bare } = postgresDialect;
  const cockroach: Dialect = { ...bare, name: "cockroach" };

  it("is refused by each store with a TypeError naming it", () => {
    expect(() => changeLogTables(cockroach)).toThrow(
      new TypeError("SqlChangeLog has no tables for the cockroach dialect"),
    );
    expect(() => idempotencyTable(cockroach)).toThrow(
      new TypeError("sqlIdempotencyStore has no table for the cockroach dialect"),
    );
    expect(() => rateLimitTable(cockroach)).toThrow(
      new TypeError("sqlRateLimitStore has no table for the cockroach dialect"),
    );
  });

  it("is not needed by a dialect made from a shipped one, which carries them", () => {
    expect(changeLogTables({ ...postgresDialect, name: "cockroach" })).toEqual(POSTGRES.log);
  });
});
