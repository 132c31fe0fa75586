import mysql from "mysql2/promise";
import pg from "pg";
import { inject } from "vitest";

/**
 * Points SPECROUTE_PG_URL and SPECROUTE_MYSQL_URL at this worker's own schema and database (made here on
 * first use), so the files of two workers never meet in one table. Child processes a test starts inherit
 * the URLs, and a test that makes a schema or database of its own still makes it beside this one.
 */
const worker = `${inject("databaseRun")}_${process.env.VITEST_POOL_ID ?? "0"}`;

/** The URLs as the run was started with, before this file pointed them at the worker's own. */
const base = {
  pg: process.env.SPECROUTE_PG_URL_BASE ?? process.env.SPECROUTE_PG_URL,
  mysql: process.env.SPECROUTE_MYSQL_URL_BASE ?? process.env.SPECROUTE_MYSQL_URL,
};

if (base.pg && !process.env.SPECROUTE_PG_URL_BASE) {
  const client = new pg.Client({ connectionString: base.pg });
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS "${worker}"`).finally(() => client.end());
  const url = new URL(base.pg);
  const options = url.searchParams.get("options");
  url.searchParams.set("options", `${options ? `${options} ` : ""}-c search_path=${worker}`);
  process.env.SPECROUTE_PG_URL_BASE = base.pg;
  process.env.SPECROUTE_PG_URL = url.toString();
}

if (base.mysql && !process.env.SPECROUTE_MYSQL_URL_BASE) {
  const connection = await mysql.createConnection({ uri: base.mysql });
  await connection.query(`CREATE DATABASE IF NOT EXISTS \`${worker}\``).finally(() => connection.end());
  const url = new URL(base.mysql);
  url.pathname = `/${worker}`;
  process.env.SPECROUTE_MYSQL_URL_BASE = base.mysql;
  process.env.SPECROUTE_MYSQL_URL = url.toString();
}
