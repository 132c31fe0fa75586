import { z } from "zod";
import { contentJson } from "../../src/core/request/content";
import { ConflictException, InputValidationException, NotFoundException } from "../../src/errors/exceptions";
import { extendZodWithOpenApi } from "../../src/openapi/extend-zod";
import type { DocumentRoute } from "../../src/openapi/types";

extendZodWithOpenApi(z);

export const Address = z
  .object({
    street: z.string().min(1),
    city: z.string(),
    zip: z
      .string()
      .regex(/^\d{5}$/)
      .optional(),
  })
  .openapi("Address");

export const User = z
  .object({
    id: z.uuid(),
    email: z.email().openapi({ example: "ada@example.com" }),
    website: z.url().optional(),
    nickname: z.string().max(32).nullable(),
    createdAt: z.iso.datetime(),
    lastLoginIp: z.ipv4().optional(),
    role: z.enum(["admin", "member"]).default("member"),
    address: Address,
    tags: z.array(z.string()).max(10).default([]),
    visits: z.bigint(),
  })
  .openapi("User", { description: "A registered user" });

export const CreateUser = z.object({
  email: z.email(),
  nickname: z.string().nullable().optional(),
  role: z.enum(["admin", "member"]).default("member"),
  address: Address,
  profile: z.object({
    bio: z.string().max(500).describe("Shown on the profile page"),
    links: z.array(z.object({ label: z.string(), href: z.url() })).max(5),
  }),
});

/** The route table of a small users API, as an adapter would hand it to the builder. */
export function userRoutes(): DocumentRoute[] {
  return [
    {
      method: "get",
      path: "/users",
      schema: {
        tags: ["Users"],
        summary: "List users",
        operationId: "listUsers",
        request: {
          query: z.object({
            page: z.number().int().min(1).default(1),
            per_page: z.number().int().min(1).max(100).default(20),
            role: z.enum(["admin", "member"]).optional(),
            active: z.boolean().optional(),
            since: z.date().optional().describe("Only users created after this instant"),
            ids: z.array(z.uuid()).optional(),
            search: z.string().optional().meta({ description: "Free text search", example: "ada" }),
          }),
          headers: z.object({
            "x-api-key": z.string().openapi({ description: "API key", param: { example: "k_live_123" } }),
            "x-request-id": z.uuid().optional(),
          }),
          cookies: z.object({ session: z.string().optional() }),
        },
        responses: {
          "200": {
            description: "A page of users",
            headers: z.object({ "x-total-count": z.number().int().describe("Users matching the filters") }),
            ...contentJson(z.object({ success: z.boolean(), result: z.array(User) })),
          },
          ...InputValidationException.schema(),
        },
      },
    },
    {
      method: "post",
      path: "/users",
      schema: {
        tags: ["Users"],
        summary: "Create a user",
        operationId: "createUser",
        request: { body: { description: "The new user", ...contentJson(CreateUser) } },
        responses: {
          "201": {
            description: "Created",
            headers: { Location: { description: "URL of the user", schema: { type: "string" } } },
            ...contentJson(User),
          },
          ...InputValidationException.schema(),
          ...ConflictException.schema(),
        },
        "x-rate-limit": 10,
      },
    },
    {
      method: "get",
      path: "/users/{userId}",
      schema: {
        tags: ["Users"],
        operationId: "getUser",
        request: {
          params: z.object({
            userId: z
              .uuid()
              .openapi({ param: { description: "The user's id" }, example: "7d8e6f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a" }),
          }),
        },
        responses: { "200": { description: "The user", ...contentJson(User) }, ...NotFoundException.schema() },
      },
    },
    {
      method: "patch",
      path: "/users/{userId}",
      schema: {
        tags: ["Users"],
        operationId: "updateUser",
        security: [{ bearer: [] }],
        request: {
          params: z.object({ userId: z.uuid() }),
          body: { required: false, ...contentJson(CreateUser.partial()) },
        },
        responses: { "200": { description: "The updated user", ...contentJson(User) } },
      },
    },
    {
      method: "put",
      path: "/users/{userId}",
      schema: {
        tags: ["Users"],
        operationId: "replaceUser",
        request: { params: z.object({ userId: z.uuid() }), body: contentJson(User) },
        responses: { "200": { description: "The stored user", ...contentJson(User) } },
      },
    },
    {
      method: "delete",
      path: "/users/{userId}",
      schema: {
        tags: ["Users"],
        operationId: "deleteUser",
        deprecated: true,
        request: { params: z.object({ userId: z.uuid() }) },
      },
    },
    {
      method: "get",
      path: "/internal/health",
      schema: { "x-ignore": true, responses: { "200": { description: "ok" } } },
    },
  ];
}
