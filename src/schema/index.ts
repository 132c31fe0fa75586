import type { z } from "zod";
import type { SchemaSeam } from "./seam";
import { zodSeam } from "./zod/zod-seam";

export { COMPONENT_REF_PREFIX, type ConvertedSchema, type SchemaObject } from "./schema-object";
export type {
  ColumnKind,
  FieldKind,
  FileConstraints,
  ScalarKind,
  SchemaIO,
  SchemaSeam,
  SchemaTarget,
  UnwrapSide,
} from "./seam";

/**
 * The seam the rest of specroute reads schemas through: zod v4's. Its members are plain functions, so
 * one may be passed on its own (`seam.isSchema`).
 *
 * @example
 * seam.objectShape(z.object({ id: z.int() }).optional()) // { id: ZodInt }
 */
export const seam: SchemaSeam<z.ZodType> = zodSeam;
