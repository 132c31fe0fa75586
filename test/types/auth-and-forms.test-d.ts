import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  apiKeyAuth,
  basicAuth,
  bearerAuth,
  contentForm,
  contentJson,
  contentMultipart,
  fileField,
  OpenAPIRoute,
  type PrincipalOf,
} from "../../src";

interface User {
  id: string;
  admin: boolean;
}
declare function findUser(token: string): Promise<User | null>;

const bearer = bearerAuth({ verify: async (token) => findUser(token) });
const syncKey = apiKeyAuth({
  in: "header",
  name: "X-API-Key",
  verify: (key) => (key === "k" ? { client: key } : null),
});
const basic = basicAuth({
  verify: async (credentials) => {
    expectTypeOf(credentials).toEqualTypeOf<{ username: string; password: string }>();
    return credentials.username === "a" ? { username: credentials.username } : undefined;
  },
});

class Bearer extends OpenAPIRoute {
  schema = { auth: bearer, responses: {} };
  async handle() {
    const user = await this.getPrincipal();
    expectTypeOf(user).toEqualTypeOf<User>();
    return { id: user.id };
  }
}

class Either extends OpenAPIRoute {
  schema = { auth: [bearer, syncKey, basic], responses: {} };
  async handle() {
    const principal = await this.getPrincipal();
    expectTypeOf(principal).toEqualTypeOf<User | { client: string } | { username: string }>();
    return {};
  }
}

class NoAuth extends OpenAPIRoute {
  schema = { security: [], responses: {} };
  async handle() {
    expectTypeOf(await this.getPrincipal()).toEqualTypeOf<unknown>();
    return {};
  }
}

const Note = z.object({ title: z.string(), count: z.number().int().default(1) });

class Bodies extends OpenAPIRoute {
  schema = {
    request: {
      body: {
        content: {
          ...contentJson(Note).content,
          ...contentForm(z.object({ title: z.string(), tags: z.array(z.string()) })).content,
          ...contentMultipart(z.object({ title: z.string(), file: fileField({ maxSize: 10 }).optional() })).content,
        },
      },
    },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData();
    expectTypeOf(body).toEqualTypeOf<
      { title: string; count: number } | { title: string; tags: string[] } | { title: string; file?: File | undefined }
    >();
    return {};
  }
}

class Upload extends OpenAPIRoute {
  schema = {
    request: { body: contentMultipart(z.object({ file: fileField(), files: z.array(fileField()) })) },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData();
    expectTypeOf(body).toEqualTypeOf<{ file: File; files: File[] }>();
    return {};
  }
}

describe("auth and form body types", () => {
  it("infers the principal from the schema's auth, and bodies from every media type", () => {
    expectTypeOf<PrincipalOf<{ auth: typeof bearer }>>().toEqualTypeOf<User>();
    expectTypeOf<PrincipalOf<{ responses: {} }>>().toEqualTypeOf<unknown>();
    expectTypeOf(Bearer).toBeObject;
    expectTypeOf(Either).toBeObject;
    expectTypeOf(NoAuth).toBeObject;
    expectTypeOf(Bodies).toBeObject;
    expectTypeOf(Upload).toBeObject;
  });
});
