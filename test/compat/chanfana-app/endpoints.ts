import type { Context } from "hono";
import {
  ApiException,
  contentJson,
  D1CreateEndpoint,
  D1DeleteEndpoint,
  D1ListEndpoint,
  D1ReadEndpoint,
  D1UpdateEndpoint,
  NotFoundException,
  OpenAPIRoute,
  UnauthorizedException,
} from "specroute";
import { z } from "zod";
import { BookSchema, bookMeta, newBookMeta } from "./models";

export type Env = {
  Bindings: {
    DB: D1Database;
    API_TOKEN: string;
  };
};
export type AppContext = Context<Env>;

export class BookCreate extends D1CreateEndpoint {
  _meta = newBookMeta;
  dbName = "DB";
}

export class BookList extends D1ListEndpoint {
  _meta = bookMeta;
  dbName = "DB";
  filterFields = ["genre", "author"];
  searchFields = ["title", "author"];
  orderByFields = ["id", "title", "year"];
  defaultOrderBy = "id";
  // This API's clients page with ?p=&size= and sort with ?order=&dir=, searching with ?q=.
  searchFieldName = "q";
  pageFieldName = "p";
  perPageFieldName = "size";
  orderByFieldName = "order";
  orderByDirectionFieldName = "dir";
}

export class BookRead extends D1ReadEndpoint {
  _meta = bookMeta;
  dbName = "DB";
}

export class BookUpdate extends D1UpdateEndpoint {
  _meta = bookMeta;
  dbName = "DB";
}

export class BookDelete extends D1DeleteEndpoint {
  _meta = bookMeta;
  dbName = "DB";
}

export class TeapotException extends ApiException {
  status = 418;
  code = 7418;
  default_message = "I am a teapot";
  isVisible = true;
}

export class Brew extends OpenAPIRoute {
  schema = {
    tags: ["Kitchen"],
    summary: "Brew a drink",
    request: {
      query: z.object({ drink: z.enum(["tea", "coffee"]) }),
    },
    responses: {
      "200": {
        description: "The drink",
        ...contentJson(z.object({ success: z.boolean(), result: z.object({ drink: z.string() }) })),
      },
      ...TeapotException.schema(),
    },
  };

  async handle(_c: AppContext) {
    const data = await this.getValidatedData<typeof this.schema>();
    if (data.query.drink === "coffee") {
      throw new TeapotException();
    }
    return { success: true, result: { drink: data.query.drink } };
  }
}

export class WhoAmI extends OpenAPIRoute {
  schema = {
    tags: ["Account"],
    summary: "The account behind the bearer token",
    security: [{ bearerAuth: [] }],
    responses: {
      "200": {
        description: "The account",
        ...contentJson(z.object({ success: z.boolean(), result: z.object({ user: z.string() }) })),
      },
      ...UnauthorizedException.schema(),
    },
  };

  async handle(c: AppContext) {
    if (c.req.header("Authorization") !== `Bearer ${c.env.API_TOKEN}`) {
      throw new UnauthorizedException("A valid bearer token is required");
    }
    return { success: true, result: { user: "librarian" } };
  }
}

// The v1 API answered errors as { ok, error }; app.onError renders this class that way.
export class LegacyError extends Error {
  constructor(public readonly original: ApiException) {
    super(original.message);
  }
}

export class LegacyBookRead extends OpenAPIRoute {
  schema = {
    tags: ["Legacy"],
    summary: "Look a book up, v1 style",
    request: {
      params: z.object({ id: z.number().int() }),
    },
    responses: {
      "200": {
        description: "The book",
        ...contentJson(z.object({ ok: z.boolean(), book: z.object({ title: z.string(), author: z.string() }) })),
      },
    },
  };

  protected handleError(error: unknown): unknown {
    if (error instanceof ApiException) {
      return new LegacyError(error);
    }
    return error;
  }

  async handle(c: AppContext) {
    const { params } = await this.getValidatedData<typeof this.schema>();
    const book = await c.env.DB.prepare("SELECT title, author FROM books WHERE id = ?1")
      .bind(params.id)
      .first<{ title: string; author: string }>();
    if (!book) {
      throw new NotFoundException(`No book with id ${params.id}`);
    }
    return { ok: true, book };
  }
}

export class BookImport extends OpenAPIRoute {
  schema = {
    tags: ["Books"],
    summary: "Import a book from a catalogue record, reporting the fields it ignored",
    request: {
      body: contentJson(newBookMeta.fields),
    },
    responses: {
      "201": {
        description: "The imported book",
        ...contentJson(z.object({ success: z.boolean(), result: BookSchema, ignored: z.array(z.string()) })),
      },
    },
  };

  async handle(c: AppContext) {
    const { body } = await this.getValidatedData<typeof this.schema>();
    // The catalogue record carries more than a book; read it whole to say what was left out.
    const record = await c.req.json<Record<string, unknown>>();
    const ignored = Object.keys(record).filter((key) => !(key in body));
    const book = await c.env.DB.prepare(
      "INSERT INTO books (title, author, genre, year) VALUES (?1, ?2, ?3, ?4) RETURNING *",
    )
      .bind(body.title, body.author, body.genre, body.year)
      .first();
    return c.json({ success: true, result: book, ignored }, 201);
  }
}
