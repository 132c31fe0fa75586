import mysql from "mysql2/promise";
import pg from "pg";
import type { TestProject } from "vitest/node";

/**
 * Each test worker gets a PostgreSQL schema and a MariaDB database of its own (test/setup/databases.ts),
 * so files running at once, and runs started at once from several checkouts, never share a table. Their
 * names carry this run's process id: what a run that died left behind is dropped by the next one.
 */
export const RUN_PREFIX = "sr_run_";

const pgUrl = process.env.SPECROUTE_PG_URL;
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;

/** Whether the run that made `name` (`sr_run_<pid>_<worker>`) is still going. */
function ownerAlive(name: string): boolean {
  const pid = Number(name.slice(RUN_PREFIX.length).split("_")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Drops every run's schema and database that `keep` does not keep. */
async function dropRuns(keep: (name: string) => boolean): Promise<void> {
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE $1",
        [`${RUN_PREFIX}%`],
      );
      for (const { name } of rows) if (!keep(name)) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    } finally {
      await client.end();
    }
  }
  if (mysqlUrl) {
    const connection = await mysql.createConnection({ uri: mysqlUrl });
    try {
      const [rows] = await connection.query("SHOW DATABASES LIKE ?", [`${RUN_PREFIX}%`]);
      for (const row of rows as Array<Record<string, string>>) {
        const name = Object.values(row)[0]!;
        if (!keep(name)) await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      }
    } finally {
      await connection.end();
    }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = `${RUN_PREFIX}${process.pid}`;
  await dropRuns(ownerAlive);
  project.provide("databaseRun", run);
  return () => dropRuns((name) => !name.startsWith(`${run}_`));
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseRun: string;
  }
}
