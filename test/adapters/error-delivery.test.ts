import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { Router } from "itty-router";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiException,
  fromHono,
  fromIttyRouter,
  InputValidationException,
  InternalServerErrorException,
  MultiException,
  NotFoundException,
  OpenAPIRoute,
  type RouterOptions,
} from "../../src";

/** An application's own error class, which its error handler turns into a 409. */
class TaskConflict extends Error {
  constructor(readonly taskId: number) {
    super(`task ${taskId} already exists`);
  }
}

class CreateTask extends OpenAPIRoute {
  schema = { request: { query: z.object({ id: z.number().int(), n: z.number().optional() }) }, responses: {} };
  async handle(): Promise<unknown> {
    const { query } = await this.getValidatedData();
    if (query.id === 404) throw new NotFoundException("no such task");
    if (query.id === 500) throw new InternalServerErrorException("database password is hunter2");
    if (query.id === 400) throw new z.ZodError([]);
    throw new TaskConflict(query.id);
  }
}

/** Wraps framework exceptions in the app's own class, as chanfana's handleError docs show. */
class Wrapping extends CreateTask {
  override handleError(error: unknown) {
    return error instanceof ApiException ? new TaskConflict(-error.status) : error;
  }
}

/** Turns the app's own error into a framework exception, by throwing it. */
class Converting extends CreateTask {
  override handleError(error: unknown) {
    if (error instanceof TaskConflict) throw new NotFoundException(`converted ${error.taskId}`);
    return error;
  }
}

/** A Hono app whose onError answers the app's own errors and framework errors as chanfana's docs show. */
function honoApp(options?: RouterOptions) {
  const app = new Hono();
  const seen: unknown[] = [];
  app.onError((err, c) => {
    seen.push(err);
    if (err instanceof TaskConflict) return c.json({ conflict: err.taskId }, 409);
    if (err instanceof HTTPException) return err.getResponse();
    return c.json({ mine: true }, 500);
  });
  const openapi = fromHonoWith(app, options);
  return { app, seen, openapi };
}

function fromHonoWith(app: Hono, options?: RouterOptions) {
  const openapi = fromHono(app, options);
  openapi.get("/tasks", CreateTask);
  openapi.get("/wrapping", Wrapping);
  openapi.get("/converting", Converting);
  return openapi;
}

describe("Hono: errors reach onError as chanfana delivers them", () => {
  it("delivers the app's own error class as itself, so onError can answer 409 from it", async () => {
    const { app, seen } = honoApp();
    const response = await app.request("/tasks?id=7");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ conflict: 7 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(TaskConflict);
    expect(seen[0]).not.toBeInstanceOf(HTTPException);
  });

  it("lets Hono's default handler answer the app's own error when the app has no onError", async () => {
    const app = new Hono();
    fromHonoWith(app);
    const original = console.error;
    console.error = () => {};
    try {
      const response = await app.request("/tasks?id=7");
      expect(response.status).toBe(500);
      expect(await response.text()).toBe("Internal Server Error");
    } finally {
      console.error = original;
    }
  });

  it("delivers framework exceptions and ZodErrors as HTTPExceptions whose response is formatted", async () => {
    const { app, seen } = honoApp();
    const missing = await app.request("/tasks?id=404");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      success: false,
      errors: [{ code: 7002, message: "no such task" }],
      result: {},
    });
    expect(seen[0]).toBeInstanceOf(HTTPException);
    expect((seen[0] as HTTPException).status).toBe(404);
    expect((await app.request("/tasks?id=400")).status).toBe(400);
    expect(seen[1]).toBeInstanceOf(HTTPException);
  });

  it("delivers a validation failure as an HTTPException with the 400 answer", async () => {
    const { app, seen } = honoApp();
    const response = await app.request("/tasks?id=abc");
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0]).toMatchObject({ code: 7001, path: ["query", "id"] });
    expect(seen[0]).toBeInstanceOf(HTTPException);
  });

  it("renders a hidden 5xx itself, naming a request id that the server log shows", async () => {
    const { app, seen } = honoApp();
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      const response = await app.request("/tasks?id=500", { headers: { "x-request-id": "req-42" } });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).not.toContain("hunter2");
      expect(JSON.parse(text).errors[0].message).toBe("Internal Error");
      expect(response.headers.get("x-request-id")).toBe("req-42");
      expect(seen[0]).toBeInstanceOf(HTTPException);
      expect(String(logged[0]?.[0])).toContain("req-42");
    } finally {
      console.error = original;
    }
  });

  it("delivers the error handleError returns: the app's own as itself", async () => {
    const { app, seen } = honoApp();
    const response = await app.request("/wrapping?id=404");
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ conflict: -404 });
    expect(seen[0]).toBeInstanceOf(TaskConflict);
    // Validation failures go through handleError too.
    expect(await (await app.request("/wrapping?id=abc")).json()).toEqual({ conflict: -400 });
  });

  it("delivers the framework exception handleError throws as a formatted HTTPException", async () => {
    const { app, seen } = honoApp();
    const response = await app.request("/converting?id=9");
    expect(response.status).toBe(404);
    expect((await response.json()).errors[0].message).toBe("converted 9");
    expect(seen[0]).toBeInstanceOf(HTTPException);
  });
});

describe("Hono with passthroughErrors: errors reach onError unformatted", () => {
  it("delivers a single validation failure as a raw MultiException", async () => {
    const { app, seen } = honoApp({ passthroughErrors: true });
    expect((await app.request("/tasks?id=abc")).status).toBe(500);
    expect(seen[0]).toBeInstanceOf(MultiException);
    const errors = (seen[0] as MultiException).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InputValidationException);
  });

  it("delivers several validation failures as one raw MultiException", async () => {
    const { app, seen } = honoApp({ passthroughErrors: true });
    await app.request("/tasks?id=abc&n=xyz");
    expect(seen[0]).toBeInstanceOf(MultiException);
    expect((seen[0] as MultiException).buildResponse().map((item) => item.path)).toEqual([
      ["query", "id"],
      ["query", "n"],
    ]);
  });

  it("delivers what handle throws as thrown, before handleError", async () => {
    const { app, seen } = honoApp({ passthroughErrors: true });
    await app.request("/wrapping?id=404");
    expect(seen[0]).toBeInstanceOf(NotFoundException);
    expect(await (await app.request("/tasks?id=3")).json()).toEqual({ conflict: 3 });
    expect(seen[1]).toBeInstanceOf(TaskConflict);
    // zod 4's ZodError is no Error subclass, so Hono rethrows it past onError, as it does under chanfana.
    await expect(app.request("/tasks?id=400")).rejects.toBeInstanceOf(z.ZodError);
  });

  it("skips handleError, as chanfana does, so a Response it would return answers nothing", async () => {
    const answering = class extends CreateTask {
      override handleError() {
        return new Response("from handleError", { status: 418 });
      }
    };
    const { app, seen, openapi } = honoApp({ passthroughErrors: true });
    openapi.get("/answering", answering);
    const response = await app.request("/answering?id=404");
    expect(response.status).toBe(500);
    expect(seen[0]).toBeInstanceOf(NotFoundException);
    // Without the option, the hook's Response is the answer.
    const hooked = honoApp();
    hooked.openapi.get("/answering", answering);
    expect((await hooked.app.request("/answering?id=404")).status).toBe(418);
  });
});

/** An itty-router router with a catch handler, as an app would write one. */
function ittyApp(options?: RouterOptions) {
  const caught: unknown[] = [];
  const itty = Router({
    catch: (err: unknown) => {
      caught.push(err);
      return err instanceof TaskConflict
        ? Response.json({ conflict: err.taskId }, { status: 409 })
        : new Response("router 500", { status: 500 });
    },
  });
  const router = fromIttyRouter(itty, options);
  router.get("/tasks", CreateTask);
  router.get("/wrapping", Wrapping);
  const request = async (path: string) => (await itty.fetch(new Request(`http://localhost${path}`))) as Response;
  return { caught, request };
}

describe("itty-router: framework errors are answered, the app's own reach the router", () => {
  it("answers framework exceptions and validation failures itself, without the router's catch", async () => {
    const { caught, request } = ittyApp({ raiseOnError: true });
    expect((await request("/tasks?id=404")).status).toBe(404);
    expect((await request("/tasks?id=abc")).status).toBe(400);
    expect(caught).toHaveLength(0);
  });

  it("throws the app's own error to the router's catch as itself", async () => {
    const { caught, request } = ittyApp();
    const response = await request("/tasks?id=7");
    expect(response.status).toBe(409);
    expect(caught[0]).toBeInstanceOf(TaskConflict);
    expect(await (await request("/wrapping?id=404")).json()).toEqual({ conflict: -404 });
  });

  it("rejects fetch with the app's own error when the router has no catch", async () => {
    const router = fromIttyRouter(Router());
    router.get("/tasks", CreateTask);
    await expect(router.fetch(new Request("http://localhost/tasks?id=7"))).rejects.toBeInstanceOf(TaskConflict);
  });

  it("hands validation failures to the router as a raw MultiException with passthroughErrors", async () => {
    const { caught, request } = ittyApp({ passthroughErrors: true });
    expect(await (await request("/tasks?id=abc")).text()).toBe("router 500");
    expect(caught[0]).toBeInstanceOf(MultiException);
  });
});

// A bad request makes an exception per field; capturing their stacks, which would name only specroute's
// own frames, was most of what a 400 cost.
describe("the exceptions of a bad request carry no stack frames of specroute's", () => {
  const hasFrames = (error: unknown) => /\n\s+at /.test(String((error as Error).stack));

  it("builds the MultiException and each field's exception without frames, and leaves Error.stackTraceLimit as it was", async () => {
    const limit = Error.stackTraceLimit;
    const { app, seen } = honoApp({ passthroughErrors: true });
    // Two fields the schema refuses, and one parameter it does not know.
    await app.request("/tasks?id=abc&n=xyz&extra=1");
    const multi = seen[0] as MultiException;
    expect(multi.buildResponse().map((item) => item.path)).toEqual([
      ["query", "extra"],
      ["query", "id"],
      ["query", "n"],
    ]);
    expect([multi, ...multi.errors].some(hasFrames)).toBe(false);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(hasFrames(new Error("after"))).toBe(true);
  });

  it("hands Hono's onError an HTTPException without frames whose cause keeps the stack of where handle threw", async () => {
    const { app, seen } = honoApp();
    expect((await app.request("/tasks?id=404")).status).toBe(404);
    const delivered = seen[0] as HTTPException;
    expect(hasFrames(delivered)).toBe(false);
    expect(delivered.cause).toBeInstanceOf(NotFoundException);
    expect(String((delivered.cause as Error).stack)).toContain("error-delivery.test.ts");
  });

  it("still answers 400 naming the field where Error.stackTraceLimit cannot be changed", async () => {
    const original = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
    Object.defineProperty(Error, "stackTraceLimit", {
      value: Error.stackTraceLimit,
      writable: false,
      configurable: true,
    });
    try {
      const { app } = honoApp();
      const response = await app.request("/tasks?id=abc");
      expect(response.status).toBe(400);
      expect((await response.json()).errors[0]).toMatchObject({ code: 7001, path: ["query", "id"] });
    } finally {
      if (original) Object.defineProperty(Error, "stackTraceLimit", original);
    }
  });
});
