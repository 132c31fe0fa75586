import { appendFileSync } from "node:fs";

/** Where the sweep writes one line per document pair (the file named by SPECROUTE_CONVERTER_SWEEP). */
export function recordSweep(entry: {
  version: string;
  routes: number;
  same: boolean;
  zod: unknown;
  direct: unknown;
}): void {
  const file = process.env.SPECROUTE_CONVERTER_SWEEP;
  if (!file) return;
  const { zod, direct, ...summary } = entry;
  appendFileSync(file, `${JSON.stringify(entry.same ? summary : entry)}\n`);
}
