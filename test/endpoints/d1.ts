import { Miniflare } from "miniflare";
import { d1Driver } from "../../src";
import type { Connection } from "../sql/fixtures";

/** A real D1 database inside workerd (Miniflare), driven from Node through its binding. */
export async function connectD1(): Promise<Connection> {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }) } }",
    d1Databases: ["DB"],
  });
  const binding = await mf.getD1Database("DB");
  return { driver: d1Driver(binding as any), close: () => mf.dispose() };
}

/** A raw D1 binding inside workerd (Miniflare), for code that calls `prepare().bind().all()` itself. */
export async function openD1Binding(): Promise<{ binding: any; close(): Promise<void> }> {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }) } }",
    d1Databases: ["DB"],
  });
  return { binding: await mf.getD1Database("DB"), close: () => mf.dispose() };
}
