// Object-type helpers chanfana 3 exports (type-fest's meanings), kept for code that names them.

/**
 * Flattens an intersection into one object type, so editors show its members.
 *
 * @example
 * type User = Simplify<{ id: number } & { name: string }>; // { id: number; name: string }
 */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * `true` when `A` and `B` are the same type (`any` equals only `any`), else `false`.
 *
 * @example
 * type Yes = IsEqual<"a", "a">; // true
 * type No = IsEqual<string, any>; // false
 */
export type IsEqual<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Keeps `Key` unless it is one of `Excluded`. */
type KeepKey<Key, Excluded> = IsEqual<Key, Excluded> extends true ? never : Key extends Excluded ? never : Key;

/**
 * `ObjectType` without `Keys`; with `{ requireExactProps: true }` the removed keys may not be given at all.
 *
 * @example
 * type Public = Except<{ id: number; password: string }, "password">; // { id: number }
 */
export type Except<
  ObjectType,
  Keys extends keyof ObjectType,
  Options extends { requireExactProps?: boolean } = { requireExactProps: false },
> = { [Key in keyof ObjectType as KeepKey<Key, Keys>]: ObjectType[Key] } & (Options["requireExactProps"] extends true
  ? Partial<Record<Keys, never>>
  : {});

/**
 * `BaseType` with `Keys` made optional.
 *
 * @example
 * type Draft = SetOptional<{ id: number; title: string }, "id">; // { title: string; id?: number }
 */
export type SetOptional<BaseType, Keys extends keyof BaseType> = Simplify<
  Except<BaseType, Keys> & Partial<Pick<BaseType, Keys>>
>;

/**
 * `BaseType` with `Keys` made required (distributed over a union).
 *
 * @example
 * type Saved = SetRequired<{ id?: number; title: string }, "id">; // { title: string; id: number }
 */
export type SetRequired<BaseType, Keys extends keyof BaseType> = BaseType extends unknown
  ? Simplify<Except<BaseType, Keys> & Required<Pick<BaseType, Keys>>>
  : never;
