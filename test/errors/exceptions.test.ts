import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiException,
  InputValidationException,
  InternalServerErrorException,
  MultiException,
  NotFoundException,
  OpenAPIRoute,
  ResponseValidationException,
  UnprocessableEntityException,
} from "../../src";
import { captureConsoleErrors, documentErrors, harnesses } from "../helpers";
import { resolvedResponse } from "../openapi/helpers";

/** A user's own exception, declared the way chanfana's docs show: class fields only. */
class TeapotException extends ApiException {
  status = 418;
  code = 7418;
  default_message = "I am a teapot";
}

class SecretException extends ApiException {
  status = 503;
  code = 7503;
  isVisible = false;
  default_message = "Maintenance";
}

class FieldException extends ApiException {
  status = 409;
  code = 7409;
  includesPath = true;
  path = ["body", "slug"];
}

const thrown: Record<string, () => unknown> = {
  base: () => new ApiException("Quota exhausted"),
  baseEmpty: () => new ApiException(),
  teapot: () => new TeapotException(),
  teapotMessage: () => new TeapotException("Only tea here"),
  secret: () => new SecretException("backend db-7 is down"),
  field: () => new FieldException("Slug taken"),
  unprocessable: () => new UnprocessableEntityException("Start after end", ["body", "startDate"]),
  unprocessableBare: () => new UnprocessableEntityException(),
  hiddenValidation: () =>
    Object.assign(new InputValidationException("secret rule", ["body", "x"]), { isVisible: false }),
  internal: () => new InternalServerErrorException("db password is hunter2"),
  multi: () =>
    new MultiException([new InputValidationException("bad a", ["body", "a"]), new NotFoundException("gone")]),
  multiHidden: () =>
    new MultiException([new InputValidationException("bad a", ["body", "a"]), new InternalServerErrorException("x")]),
};

class Throws extends OpenAPIRoute {
  schema = { request: { params: z.object({ kind: z.string() }) }, responses: {} };
  async handle() {
    const { params } = await this.getValidatedData();
    throw thrown[params.kind]!();
  }
}

/** Reclassifies validation failures, which arrive as one MultiException however many fields failed. */
class Reclassifies extends OpenAPIRoute {
  schema = { request: { query: z.object({ n: z.coerce.number() }) }, responses: {} };
  async handle() {
    return { ok: true };
  }
  protected handleError(error: unknown): unknown {
    return error instanceof MultiException ? new ApiException("Custom validation failed") : error;
  }
}

const logged = captureConsoleErrors();

for (const harness of harnesses) {
  describe(`${harness.name}: exceptions answer as chanfana's`, () => {
    const { router, request } = harness.make();
    router.get("/throw/:kind", Throws);
    router.get("/reclassify", Reclassifies);

    async function answer(kind: string) {
      const response = await request(`/throw/${kind}`);
      return { status: response.status, body: await response.json(), id: response.headers.get("x-request-id") };
    }

    it("shows the message of a plain ApiException, and its default message when it has none", async () => {
      expect(await answer("base")).toMatchObject({
        status: 500,
        body: { success: false, errors: [{ code: 7000, message: "Quota exhausted" }], result: {} },
      });
      expect((await answer("baseEmpty")).body.errors).toEqual([{ code: 7000, message: "Internal Error" }]);
    });

    it("answers a subclass with the status, code and default message it declares as class fields", async () => {
      expect(await answer("teapot")).toMatchObject({
        status: 418,
        body: { errors: [{ code: 7418, message: "I am a teapot" }] },
      });
      expect((await answer("teapotMessage")).body.errors).toEqual([{ code: 7418, message: "Only tea here" }]);
    });

    it("hides the message of a subclass declaring isVisible = false", async () => {
      const { status, body } = await answer("secret");
      expect(status).toBe(503);
      expect(body.errors).toEqual([{ code: 7503, message: "Internal Error" }]);
    });

    it("includes the path of a subclass declaring includesPath", async () => {
      expect((await answer("field")).body.errors).toEqual([
        { code: 7409, message: "Slug taken", path: ["body", "slug"] },
      ]);
    });

    it("answers UnprocessableEntityException with its path, and its default message without one", async () => {
      expect(await answer("unprocessable")).toMatchObject({
        status: 422,
        body: { errors: [{ code: 7007, message: "Start after end", path: ["body", "startDate"] }] },
      });
      expect((await answer("unprocessableBare")).body.errors).toEqual([
        { code: 7007, message: "Unprocessable Entity" },
      ]);
    });

    it("answers a validation exception with isVisible = false as 'Internal Error', keeping its path", async () => {
      expect((await answer("hiddenValidation")).body.errors).toEqual([
        { code: 7001, message: "Internal Error", path: ["body", "x"] },
      ]);
    });

    it("answers a hidden 500 with exactly 'Internal Error', the request id only in the header and the log", async () => {
      const { status, body, id } = await answer("internal");
      expect(status).toBe(500);
      expect(body.errors).toEqual([{ code: 7009, message: "Internal Error" }]);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(logged).toHaveLength(1);
      expect(String(logged[0]![0])).toContain(`request id ${id}`);
    });

    it("hands a one-field validation failure to handleError as a MultiException, as chanfana does", async () => {
      const response = await request("/reclassify?n=abc");
      expect(response.status).toBe(500);
      expect((await response.json()).errors).toEqual([{ code: 7000, message: "Custom validation failed" }]);
    });

    it("answers a MultiException with every item, at the highest status", async () => {
      expect(await answer("multi")).toMatchObject({
        status: 404,
        body: {
          errors: [
            { code: 7001, message: "bad a", path: ["body", "a"] },
            { code: 7002, message: "gone" },
          ],
        },
      });
      expect(await answer("multiHidden")).toMatchObject({
        status: 500,
        body: {
          errors: [
            { code: 7001, message: "bad a" },
            { code: 7009, message: "Internal Error" },
          ],
        },
      });
    });
  });
}

describe("exception values and documentation", () => {
  it("reads chanfana's defaults on instances of the built-in classes", () => {
    expect(new ApiException("x")).toMatchObject({ status: 500, code: 7000, isVisible: true, includesPath: false });
    expect(new InternalServerErrorException()).toMatchObject({ status: 500, code: 7009, isVisible: false });
    expect(new ResponseValidationException()).toMatchObject({ status: 500, code: 7013, isVisible: false });
    const unprocessable = new UnprocessableEntityException("Bad range", ["body", "range"]);
    expect(unprocessable).toMatchObject({ status: 422, includesPath: true, path: ["body", "range"] });
    expect(new NotFoundException().message).toBe("Not Found");
  });

  it("lets an instance's own assignment win over its class's default", () => {
    const error = new NotFoundException("gone");
    error.status = 410;
    error.isVisible = false;
    expect(error.buildResponse()).toEqual([{ code: 7002, message: "Internal Error" }]);
    expect(error.status).toBe(410);
    expect(new NotFoundException().status).toBe(404);
  });

  it("gives a MultiException at least 400, hidden when any item is", () => {
    expect(new MultiException([]).status).toBe(400);
    const mixed = new MultiException([new NotFoundException(), new TeapotException()]);
    expect(mixed).toMatchObject({ status: 418, isVisible: true, code: 7000 });
    expect(new MultiException([new NotFoundException(), new SecretException()]).isVisible).toBe(false);
  });

  it("documents a subclass with the status and description its class fields declare", () => {
    const documented = TeapotException.schema();
    expect(Object.keys(documented)).toEqual(["418"]);
    expect(documented["418"]!.description).toBe("I am a teapot");
  });

  it("puts a subclass's status, description and item shape in the OpenAPI document", async () => {
    class Brew extends OpenAPIRoute {
      schema = { responses: { ...TeapotException.schema(), ...UnprocessableEntityException.schema() } };
      async handle() {
        return {};
      }
    }
    const { router } = harnesses[0]!.make();
    router.get("/brew", Brew);
    const doc = router.getGeneratedSchema();
    expect(await documentErrors(doc)).toBeNull();
    const responses = doc.paths["/brew"].get.responses;
    expect(responses["418"].description).toBe("I am a teapot");
    const itemProperties = (status: string) => {
      const envelope = resolvedResponse(doc, responses[status]).content["application/json"].schema;
      const resolved = envelope.$ref ? doc.components.schemas[envelope.$ref.split("/").pop()] : envelope;
      return Object.keys(resolved.properties.errors.items.properties);
    };
    expect(itemProperties("418")).toEqual(["code", "message"]);
    expect(itemProperties("422")).toEqual(["code", "message", "path"]);
  });

  it("documents `path` in the error items only for exceptions that include one", () => {
    const itemKeys = (config: ReturnType<typeof ApiException.schema>, status: string) => {
      const envelope = config[status]!.content["application/json"].schema as z.ZodObject<any>;
      return Object.keys((envelope.shape.errors as z.ZodArray<z.ZodObject<any>>).element.shape);
    };
    expect(itemKeys(NotFoundException.schema(), "404")).toEqual(["code", "message"]);
    expect(itemKeys(InputValidationException.schema(), "400")).toEqual(["code", "message", "path"]);
    expect(itemKeys(UnprocessableEntityException.schema(), "422")).toEqual(["code", "message", "path"]);
    expect(itemKeys(FieldException.schema(), "409")).toEqual(["code", "message", "path"]);
  });
});

describe("a union's failure names the field inside the member the value's type chose", () => {
  class SetLabel extends OpenAPIRoute {
    schema = {
      request: {
        body: {
          content: {
            "application/json": {
              // A label is a name, or an object with a name and a colour.
              schema: z.object({
                label: z.union([
                  z.string().min(1),
                  z.object({ name: z.string().min(1), color: z.enum(["red", "blue"]) }),
                ]),
              }),
            },
          },
        },
      },
      responses: {},
    };
    async handle() {
      return { ok: true };
    }
  }

  async function errorsFor(body: unknown) {
    const { router, request } = harnesses[0]!.make();
    router.post("/labels", SetLabel);
    const response = await request("/labels", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    return ((await response.json()) as { errors: { message: string; path: unknown[] }[] }).errors;
  }

  it("reports the object member's own issues for an object", async () => {
    const errors = await errorsFor({ label: { name: "", color: "green" } });
    expect(errors.map((error) => error.path)).toEqual([
      ["body", "label", "name"],
      ["body", "label", "color"],
    ]);
  });

  it("keeps zod's one union issue when the value has no member's type", async () => {
    const errors = await errorsFor({ label: 7 });
    expect(errors).toEqual([expect.objectContaining({ message: "Invalid input", path: ["body", "label"] })]);
  });
});

describe("exception names", () => {
  it("names a built-in by its class and a subclass of yours by its own class, a name field winning", () => {
    class TeapotException extends ApiException {
      status = 418;
    }
    class Renamed extends NotFoundException {
      name = "GoneMissing";
    }
    expect(new NotFoundException().name).toBe("NotFoundException");
    expect(new InputValidationException("x").name).toBe("InputValidationException");
    expect(new TeapotException().name).toBe("TeapotException");
    expect(new Renamed().name).toBe("GoneMissing");
    expect(String(new TeapotException("short"))).toBe("TeapotException: short");
  });
});

describe("built-in exceptions' response entries", () => {
  it("share one frozen entry per class, in a record of the caller's own", () => {
    const first = NotFoundException.schema();
    const second = NotFoundException.schema();
    expect(first).not.toBe(second);
    expect(first["404"]).toBe(second["404"]);
    expect(() => {
      (first["404"] as { description: string }).description = "Gone";
    }).toThrow(TypeError);
    (first as Record<string, unknown>)["410"] = { description: "Gone" };
    expect(NotFoundException.schema()).not.toHaveProperty("410");
    expect(NotFoundException.schema()["404"]!.description).toBe("Not Found");
  });
});
