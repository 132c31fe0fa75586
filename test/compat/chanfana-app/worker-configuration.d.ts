// What `wrangler types` gives a chanfana project, trimmed to the D1 binding this app uses.
declare global {
  interface D1Result<T = Record<string, unknown>> {
    success: boolean;
    results: T[];
    meta: Record<string, unknown>;
  }
  interface D1PreparedStatement {
    bind(...values: unknown[]): D1PreparedStatement;
    first<T = Record<string, unknown>>(column?: string): Promise<T | null>;
    all<T = Record<string, unknown>>(): Promise<D1Result<T>>;
    run<T = Record<string, unknown>>(): Promise<D1Result<T>>;
  }
  interface D1Database {
    prepare(query: string): D1PreparedStatement;
  }
}

export {};
