import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { ERROR_CODES, errorEnvelopeSchema } from "../../src";
import { type AdapterName, buildTarget, type FuzzTarget, type NoteRow, SEED_NOTES } from "./fuzz-app";

/**
 * Property-based fuzzing of request handling. A case is a valid request (with the exact answer it
 * must get), a valid request with adversarial mutations, or an adversarial request from scratch.
 * Every answer is checked: never a 5xx, never an escaped error, every 4xx in the documented
 * envelope, nothing internal in any body, valid requests round-trip, and the stored notes change
 * only through a 2xx write, exactly as that answer says.
 */

type Pair = [string, string | null];

/** What a valid request must get, judged against the stored notes at the time it is sent. */
type Expectation =
  | { kind: "echo"; value: unknown }
  | { kind: "create"; data: Record<string, unknown> }
  | { kind: "read" | "delete"; id: number }
  | { kind: "update"; id: number; data: Record<string, unknown> }
  | { kind: "list"; query: ListQuery };

interface ListQuery {
  page: number;
  per_page: number;
  done?: boolean;
  tag?: string;
  priority?: number;
  priority__gte?: number;
  priority__lte?: number;
  priority__in?: number[];
  search?: string;
  order_by: "id" | "title" | "priority";
  order_by_direction: "asc" | "desc";
}

export interface FuzzCase {
  label: string;
  method: string;
  /** Path segments, already percent-encoded as sent (adversarial ones may be malformed). */
  segments: string[];
  /** Query pairs as sent: a null value is a key without "=". */
  query: Pair[];
  headers: Array<[string, string]>;
  body?: string | Uint8Array;
  expect?: Expectation;
}

// ---------------------------------------------------------------- adversarial pools

const HUGE_STRING_BODY = `{"name":"${"x".repeat(2_000_000)}","title":"t"}`;
const LONG_STRING_BODY = `{"name":"${"y".repeat(200_000)}","title":"${"z".repeat(200_000)}"}`;
const LONG_ARRAY_BODY = `{"tags":[${"1,".repeat(100_000)}1],"priority__in":[1]}`;
const DEEP = 10_000;
const bytes = (...values: number[]) => new Uint8Array(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

const BODIES: Array<string | Uint8Array> = [
  "",
  " ",
  "{",
  "[",
  '{"name":',
  '{"name":"a",',
  '{"title":"unterminated',
  "null",
  "true",
  "0",
  "-0",
  "1e400",
  '"a string"',
  "[]",
  "{}",
  "[1,2,3]",
  "{}{}",
  "{} trailing",
  "'single'",
  "{name:1}",
  "NaN",
  "undefined",
  "[".repeat(DEEP) + "]".repeat(DEEP),
  `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`,
  "[".repeat(DEEP),
  `{"prefs":${'{"a":'.repeat(300)}1${"}".repeat(300)}}`,
  `{"title":"deep","body":${"[".repeat(257)}${"]".repeat(257)}}`,
  HUGE_STRING_BODY,
  LONG_STRING_BODY,
  LONG_ARRAY_BODY,
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"\\u005f_proto__":{"polluted":1}}',
  '{"__pro\\u0074o__":{"polluted":1},"title":"x"}',
  '{"name":"a","email":"a@b.co","nickname":null,"prefs":{"__proto__":{"newsletter":true}}}',
  '{"title":"proto","constructor":{"name":"x"},"toString":1,"hasOwnProperty":2}',
  '{"name":"a","name":"b","email":"a@b.co","nickname":null}',
  '{"title":"dup","title":"dup2","priority":1,"priority":9}',
  '{"title":"nul\\u0000byte"}',
  '{"title":"\\ud800 lone"}',
  '{"title":"\\udc00\\ud800"}',
  '{"title":1e400}',
  '{"title":"x","priority":1.5}',
  '{"title":"x","priority":"3"}',
  '{"title":"x","done":"true"}',
  '{"title":"x","due":"2026-02-30"}',
  '{"title":"x","tag":"A"}',
  '{"title":["x"]}',
  '{"title":{"x":1}}',
  '{"title":null}',
  '{"id":5,"title":"with id"}',
  '{"name":"a","email":"a@b.co","nickname":null,"address":{"city":"c","zip":"12345","extra":1}}',
  '{"name":"a","email":"a@b.co","nickname":null,"tags":["1","2","3","4","5","6"]}',
  '{"name":"a","email":"not an email","nickname":"n".repeat(3)}',
  "name=a&email=b",
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
  bytes(0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d),
  bytes(0xc0, 0xaf),
  bytes(0xed, 0xa0, 0x80),
  bytes(0xe2, 0x82),
  bytes(0x00, 0x00, 0x00),
  bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d),
  bytes(0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00),
  utf8('{"title":"caf\u00e9 \u{1F600}","body":"\u202e"}'),
];

const SEGMENTS = [
  "1",
  "0",
  "-1",
  "1.5",
  "1e3",
  "1e309",
  "NaN",
  "Infinity",
  "-0",
  "0x10",
  "0b1",
  "99999999999999999999",
  "9007199254740993",
  "%",
  "%zz",
  "%E0%A4%A",
  "%00",
  "%2F",
  "%2e%2e",
  "%C0%AF",
  "%FF",
  "caf%C3%A9",
  "%F0%9F%98%80",
  "%ED%A0%80",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "%20",
  "+",
  "a".repeat(5000),
  "é",
  ";",
  "a;b=c",
  "'",
  "%22",
  "%3Cscript%3E",
  "'%20OR%201=1%20--",
  "%u0041",
  "..",
  ".",
  "",
];

const QUERY_KEYS = [
  "code",
  "file",
  "word",
  "limit",
  "offset",
  "delta",
  "ratio",
  "flag",
  "color",
  "level",
  "mode",
  "tags",
  "ids",
  "email",
  "site",
  "uid",
  "v4",
  "v6",
  "ip",
  "at",
  "day",
  "time",
  "even",
  "shout",
  "big",
  "note",
  "page",
  "per_page",
  "done",
  "tag",
  "priority",
  "priority__gte",
  "priority__lte",
  "priority__in",
  "search",
  "order_by",
  "order_by_direction",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "",
  "%",
  "%zz",
  "a[]",
  "a[b]",
  "tags[]",
  "LIMIT",
  "page%20",
  "%F0%9F%98%80",
  "k".repeat(1000),
];

const QUERY_VALUES = [
  "",
  "%20",
  "+",
  "0",
  "-0",
  "1",
  "-1",
  "1.5",
  "1e3",
  "1e309",
  "-1e309",
  "5e-324",
  "NaN",
  "Infinity",
  "0x10",
  "0o7",
  "0b1",
  "1_000",
  "99999999999999999999",
  "9007199254740993",
  "9007199254740991",
  "4503599627370497",
  "90071992547409",
  "2147483648",
  "-2147483649",
  "true",
  "TRUE",
  "false",
  "yes",
  "null",
  "undefined",
  "[]",
  "{}",
  "%",
  "%zz",
  "%E0%A4%A",
  "%00",
  "%C3%A9",
  "%F0%9F%98%80",
  "%ED%A0%80",
  "a+b",
  "%26",
  "=",
  "==",
  "😀",
  "é",
  "\u202e",
  "a".repeat(10_000),
  "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
  "'%20OR%20'1'='1",
  "%3B%20DROP%20TABLE%20notes%3B%20--",
  "%25",
  "_",
  "2026-02-30",
  "2026-13-01",
  "24:00:00",
  "1970-01-01T00:00:00Z",
  "::1",
  "1.2.3.4",
  "256.1.1.1",
  "00000000-0000-0000-0000-000000000000",
  "a@b",
  "http://",
  "javascript:alert(1)",
  "__proto__",
  "constructor",
  "red",
  "RED",
  "low",
  "FAST",
  "asc",
  "DESC",
  "title",
  "id",
];

const HEADER_NAMES = [
  "X-Api-Key",
  "x-api-key",
  "X-Count",
  "X-Flag",
  "X-Trace",
  "content-type",
  "content-length",
  "cookie",
  "x-request-id",
  "accept",
  "authorization",
  "x-forwarded-for",
  "transfer-encoding",
];

const HEADER_VALUES = [
  "",
  "0",
  "-1",
  "1e309",
  "NaN",
  "true",
  "TRUE",
  "maybe",
  "short",
  "a".repeat(8),
  "a".repeat(100),
  "b".repeat(8000),
  "\u00e9\u00ff\u00fe",
  "%zz",
  "null",
  "00000000-0000-0000-0000-000000000000",
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "application/json; charset=latin1",
  "text/plain",
  "text/json",
  "*/*",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  ";;;",
  "session=abc; theme=dark",
  'theme=%zz; theme=dark; session="AAAAAAAAAAAAAAAA"',
  "=; ; ==; a",
  "99999999999",
  "5",
  "chunked",
  "not a safe id <script>",
  "\t",
];

const COOKIE_VALUES = ['"quoted"', "%zz", "%E0%A4%A", "dark", "DARK", "light", "a".repeat(16), "", "=", "a b", "é"];

// ---------------------------------------------------------------- valid requests

type Wire = { wire: string[]; out: unknown };

const encode = encodeURIComponent;
const one = (wire: string, out: unknown = wire): Wire => ({ wire: [wire], out });
const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join(""));

/** An integer as any decimal spelling the coercion accepts: "+5", "5.0", "5e0", "005". */
const intWire = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.constantFrom("plain", "plus", "point", "exp", "zeros"))
    .map(([n, style]): Wire => {
      const text = String(n);
      const spelled =
        style === "plus" && n >= 0
          ? `+${text}`
          : style === "point"
            ? `${text}.0`
            : style === "exp"
              ? `${text}e0`
              : style === "zeros" && n >= 0
                ? `00${text}`
                : text;
      return one(encode(spelled), n);
    });

const boolWire = fc.boolean().chain((b) => randomCase(String(b)).map((text) => one(text, b)));
const textUnits = (min: number, max: number) =>
  fc
    .string({ unit: "grapheme", minLength: min, maxLength: max })
    .filter((text) => text.length >= min && text.length <= max && !text.includes("\u0000"));
const textWire = (min: number, max: number) => textUnits(min, max).map((text) => one(encode(text), text));
const patternWire = (pattern: RegExp, out?: (text: string) => unknown) =>
  fc.stringMatching(pattern).map((text) => one(encode(text), out ? out(text) : text));
const EMAIL = /^[a-z0-9]{1,10}(\.[a-z0-9]{1,5})?@[a-z0-9]{1,10}\.[a-z]{2,6}$/;
const URL_PATTERN = /^https?:\/\/[a-z]{1,10}\.(com|org|dev)(\/[a-z0-9]{0,10})?$/;
const isoDate = fc.date({ min: new Date("1970-01-01"), max: new Date("2100-12-31"), noInvalidDate: true });
const ipAny = fc.oneof(fc.ipV4(), fc.ipV6());
const dayText = isoDate.map((date) => date.toISOString().slice(0, 10));
const timeText = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }))
  .map((parts) => parts.map((n) => String(n).padStart(2, "0")).join(":"));
const arrayWire = (element: fc.Arbitrary<Wire>, min: number, max: number) =>
  fc
    .array(element, { minLength: min, maxLength: max })
    .map((items): Wire => ({ wire: items.flatMap((item) => item.wire), out: items.map((item) => item.out) }));

const queryFields: Record<string, fc.Arbitrary<Wire>> = {
  code: patternWire(/^ab[a-z0-9]{3}$/),
  file: patternWire(/^[a-z0-9_-]{1,26}\.txt$/),
  word: patternWire(/^[a-z]{2,20}$/),
  limit: intWire(1, 100),
  offset: intWire(0, 1e12),
  delta: intWire(-1e9, -1),
  ratio: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => one(String(x), x)),
  flag: boolWire,
  color: fc.constantFrom("red", "green", "blue").map((color) => one(color)),
  level: fc.constantFrom("low", "high").map((level) => one(level, level === "low" ? 1 : 2)),
  mode: fc
    .constantFrom("fast", "slow")
    .chain((mode) => randomCase(mode))
    .map((mode) => one(mode, mode.toLowerCase())),
  tags: arrayWire(textWire(1, 10), 1, 5),
  ids: arrayWire(intWire(-1e12, 1e12), 1, 20),
  email: patternWire(EMAIL),
  site: patternWire(URL_PATTERN),
  uid: fc.uuid().map((id) => one(id)),
  v4: fc.ipV4().map((ip) => one(ip)),
  v6: fc.ipV6().map((ip) => one(encode(ip), ip)),
  ip: ipAny.map((ip) => one(encode(ip), ip)),
  at: isoDate.map((date) => one(encode(date.toISOString()), date.toISOString())),
  day: dayText.map((day) => one(day)),
  time: timeText.map((time) => one(encode(time), time)),
  even: fc.integer({ min: -1e9, max: 1e9 }).map((n) => one(String(n * 2), n * 2)),
  shout: patternWire(/^[a-z ]{1,20}$/, (text) => text.toUpperCase()),
  // Echoed as a JSON integer, which JSON.parse reads as the nearest number (its digits: test/core/json-values.test.ts).
  big: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => one(String(n), Number(n))),
  note: textWire(1, 30),
};
const QUERY_DEFAULTS = { limit: 10, flag: false, color: "red" };

/** Some of the given fields, each present with probability 1/2, plus the required ones. */
function someOf(fields: Record<string, fc.Arbitrary<Wire>>, required: string[] = []) {
  const record: Record<string, fc.Arbitrary<Wire | undefined>> = {};
  for (const [key, arb] of Object.entries(fields)) {
    record[key] = required.includes(key) ? arb : fc.option(arb, { nil: undefined, freq: 2 });
  }
  return fc.record(record).map((chosen) => {
    const present: Record<string, Wire> = {};
    for (const [key, value] of Object.entries(chosen)) if (value !== undefined) present[key] = value;
    return present;
  });
}

const jsonFields = (fields: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) => {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, arb] of Object.entries(fields)) {
    record[key] = required.includes(key) ? arb : fc.option(arb, { nil: undefined, freq: 2 });
  }
  return fc.record(record).map((chosen) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(chosen)) if (value !== undefined) out[key] = value;
    return out;
  });
};

const everythingBody = jsonFields(
  {
    name: textUnits(1, 50),
    email: fc.stringMatching(EMAIL),
    age: fc.integer({ min: 0, max: 150 }),
    score: fc.double({ min: -1000, max: 1000, noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
    tags: fc.array(textUnits(1, 12), { maxLength: 5 }),
    address: fc.record({ city: textUnits(1, 40), zip: fc.stringMatching(/^\d{5}$/) }),
    prefs: jsonFields({ newsletter: fc.boolean(), volume: fc.integer({ min: 0, max: 10 }) }),
    nickname: fc.option(textUnits(0, 20), { nil: null }),
    role: fc.constantFrom("admin", "member"),
    ip: ipAny,
    website: fc.stringMatching(URL_PATTERN),
    born: dayText,
    seen: isoDate.map((date) => date.toISOString()),
    alarm: timeText,
  },
  ["name", "email", "nickname"],
);
const BODY_DEFAULTS = { score: 0, tags: [], prefs: {}, role: "member" };
const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "application/merge+json",
];

const headerName = (name: string) => randomCase(name);

const validEverything: fc.Arbitrary<FuzzCase> = fc
  .record({
    method: fc.constantFrom("POST", "PUT"),
    id: fc.integer({ min: 1, max: 1_000_000 }),
    slug: textUnits(1, 40).filter((slug) => slug !== "." && slug !== ".."),
    query: someOf(queryFields),
    key: fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/),
    count: fc.option(intWire(0, 1000), { nil: undefined }),
    flag: fc.option(boolWire, { nil: undefined }),
    trace: fc.option(fc.uuid(), { nil: undefined }),
    names: fc.tuple(headerName("x-api-key"), headerName("x-count"), headerName("x-flag"), headerName("x-trace")),
    session: fc.option(fc.stringMatching(/^[A-Za-z0-9]{16}$/), { nil: undefined }),
    theme: fc.option(fc.constantFrom("dark", "light"), { nil: undefined }),
    body: everythingBody,
    indent: fc.constantFrom(0, 2),
    contentType: fc.constantFrom(...JSON_TYPES),
  })
  .map((v) => {
    const query: Pair[] = [];
    const expectedQuery: Record<string, unknown> = { ...QUERY_DEFAULTS };
    for (const [key, wire] of Object.entries(v.query)) {
      for (const value of wire.wire) query.push([key, value]);
      expectedQuery[key] = wire.out;
    }
    const headers: Array<[string, string]> = [
      [v.names[0], v.key],
      ["content-type", v.contentType],
    ];
    const expectedHeaders: Record<string, unknown> = { "X-Api-Key": v.key };
    if (v.count) {
      headers.push([v.names[1], decodeURIComponent(v.count.wire[0]!)]);
      expectedHeaders["X-Count"] = v.count.out;
    }
    if (v.flag) {
      headers.push([v.names[2], v.flag.wire[0]!]);
      expectedHeaders["X-Flag"] = v.flag.out;
    }
    if (v.trace) {
      headers.push([v.names[3], v.trace]);
      expectedHeaders["X-Trace"] = v.trace;
    }
    const cookies: string[] = [];
    const expectedCookies: Record<string, unknown> = { theme: v.theme ?? "light" };
    if (v.session) {
      cookies.push(`session=${v.session}`);
      expectedCookies.session = v.session;
    }
    if (v.theme) cookies.push(`theme=${v.theme}`);
    if (cookies.length > 0) headers.push(["cookie", cookies.join("; ")]);
    return {
      label: "everything (valid)",
      method: v.method,
      segments: ["things", String(v.id), encode(v.slug)],
      query,
      headers,
      body: JSON.stringify(v.body, null, v.indent),
      expect: {
        kind: "echo",
        value: {
          params: { id: v.id, slug: v.slug },
          query: expectedQuery,
          headers: expectedHeaders,
          cookies: expectedCookies,
          body: { ...BODY_DEFAULTS, ...v.body },
        },
      },
    } satisfies FuzzCase;
  });

const noteTitle = fc.oneof(
  { arbitrary: textUnits(1, 60), weight: 4 },
  { arbitrary: fc.constantFrom(...SEED_NOTES.map((note) => note.title)), weight: 1 },
);
const noteFields = {
  title: noteTitle,
  body: fc.option(textUnits(0, 500), { nil: null }),
  priority: fc.integer({ min: 1, max: 5 }),
  done: fc.boolean(),
  tag: fc.constantFrom("a", "b", "c"),
  due: fc.option(dayText, { nil: null }),
};
const noteId = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 15 }), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 400 }), weight: 1 },
);
const jsonHeaders = fc.constantFrom(...JSON_TYPES).map((type): Array<[string, string]> => [["content-type", type]]);

const validNotes: fc.Arbitrary<FuzzCase> = fc.oneof(
  fc.record({ data: jsonFields(noteFields, ["title"]), headers: jsonHeaders }).map(
    ({ data, headers }): FuzzCase => ({
      label: "create (valid)",
      method: "POST",
      segments: ["notes"],
      query: [],
      headers,
      body: JSON.stringify(data),
      expect: { kind: "create", data },
    }),
  ),
  noteId.map(
    (id): FuzzCase => ({
      label: "read (valid)",
      method: "GET",
      segments: ["notes", String(id)],
      query: [],
      headers: [],
      expect: { kind: "read", id },
    }),
  ),
  fc
    .record({ id: noteId, put: fc.boolean(), data: jsonFields(noteFields), headers: jsonHeaders })
    .map(({ id, put, data, headers }): FuzzCase => {
      const sent = put && data.title === undefined ? { ...data, title: `put ${id}` } : data;
      return {
        label: `${put ? "put" : "patch"} (valid)`,
        method: put ? "PUT" : "PATCH",
        segments: ["notes", String(id)],
        query: [],
        headers,
        body: JSON.stringify(sent),
        expect: { kind: "update", id, data: sent },
      };
    }),
  noteId.map(
    (id): FuzzCase => ({
      label: "delete (valid)",
      method: "DELETE",
      segments: ["notes", String(id)],
      query: [],
      headers: [],
      expect: { kind: "delete", id },
    }),
  ),
  fc
    .record({
      page: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      per_page: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      done: fc.option(fc.boolean(), { nil: undefined }),
      tag: fc.option(fc.constantFrom("a", "b", "c"), { nil: undefined }),
      priority: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      priority__gte: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      priority__lte: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      priority__in: fc.option(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }), {
        nil: undefined,
      }),
      search: fc.option(fc.stringMatching(/^[A-Za-z0-9 %_]{1,4}$/), { nil: undefined }),
      order_by: fc.option(fc.constantFrom("id", "title", "priority"), { nil: undefined }),
      order_by_direction: fc.option(fc.constantFrom("asc", "desc"), { nil: undefined }),
    })
    .map((q): FuzzCase => {
      const query: Pair[] = [];
      for (const [key, value] of Object.entries(q)) {
        if (value === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) query.push([key, encode(String(item))]);
      }
      const normalized: ListQuery = {
        ...(Object.fromEntries(Object.entries(q).filter(([, value]) => value !== undefined)) as Partial<ListQuery>),
        page: q.page ?? 1,
        per_page: q.per_page ?? 20,
        order_by: q.order_by ?? "id",
        order_by_direction: q.order_by_direction ?? "asc",
      };
      return {
        label: "list (valid)",
        method: "GET",
        segments: ["notes"],
        query,
        headers: [],
        expect: { kind: "list", query: normalized },
      };
    }),
);

/** One body sent as JSON, a URL-encoded form, or multipart (with a text file sometimes). */
const validForms: fc.Arbitrary<FuzzCase> = fc
  .record({
    data: jsonFields(
      {
        title: textUnits(1, 40),
        count: fc.integer({ min: 0, max: 100 }),
        flag: fc.boolean(),
        tags: fc.array(textUnits(1, 10), { maxLength: 4 }),
      },
      ["title"],
    ),
    format: fc.constantFrom("json", "form", "multipart"),
    boundary: fc.stringMatching(/^[A-Za-z0-9_-]{16,40}$/),
    file: fc.option(
      fc.record({
        name: fc.stringMatching(/^[a-z0-9_-]{1,20}\.txt$/),
        text: fc.string({ unit: "grapheme", minLength: 1, maxLength: 200 }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ data, format, boundary, file }): FuzzCase => {
    const expected = { count: 0, flag: false, tags: [], ...data, doc: null as unknown };
    const pairs: Array<[string, string]> = [];
    for (const [key, value] of Object.entries(data)) {
      for (const item of Array.isArray(value) ? value : [value]) pairs.push([key, String(item)]);
    }
    let body: string;
    let type: string;
    if (format === "json") {
      body = JSON.stringify(data);
      type = "application/json";
    } else if (format === "form") {
      body = new URLSearchParams(pairs).toString();
      type = "application/x-www-form-urlencoded";
    } else {
      const part = (name: string, value: string, extra = "") =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n${value}\r\n`;
      body = pairs.map(([key, value]) => part(key, value)).join("");
      if (file) {
        body += part("doc", file.text, `; filename="${file.name}"\r\nContent-Type: text/plain`);
        expected.doc = { name: file.name, size: Buffer.byteLength(file.text), text: file.text };
      }
      body += `--${boundary}--\r\n`;
      type = `multipart/form-data; boundary=${boundary}`;
    }
    return {
      label: `forms ${format} (valid)`,
      method: "POST",
      segments: ["forms"],
      query: [],
      headers: [["content-type", type]],
      body,
      expect: { kind: "echo", value: expected },
    };
  });

const validCase = fc.oneof(
  { arbitrary: validEverything, weight: 2 },
  { arbitrary: validNotes, weight: 4 },
  { arbitrary: validForms, weight: 1 },
);

// ---------------------------------------------------------------- adversarial requests

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND", "PURGE", "patch", "Get"];
const methodArb = fc.constantFrom(...METHODS);
const segmentArb = fc.oneof(
  { arbitrary: fc.constantFrom(...SEGMENTS), weight: 3 },
  { arbitrary: textUnits(1, 12).map(encode), weight: 1 },
);
const pathArb = fc.oneof(
  fc.tuple(segmentArb, segmentArb).map(([a, b]) => ["things", a, b]),
  segmentArb.map((a) => ["notes", a]),
  fc.constant<string[]>(["notes"]),
  segmentArb.map((a) => ["things", a]),
  fc.tuple(segmentArb, segmentArb).map(([a, b]) => ["notes", a, b]),
  segmentArb.map((a) => [a]),
  fc.constant<string[]>([]),
);
const queryValueArb = fc.oneof(
  { arbitrary: fc.constantFrom(...QUERY_VALUES), weight: 4 },
  // Numbers of every size and sign (fast-check leans towards the extremes), as a client would spell them.
  { arbitrary: fc.oneof(fc.maxSafeInteger(), fc.double(), fc.bigInt()).map((n) => encode(String(n))), weight: 2 },
  { arbitrary: textUnits(0, 8).map(encode), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
);
const LIST_KEYS = [
  "page",
  "per_page",
  "done",
  "tag",
  "priority",
  "priority__gte",
  "priority__lte",
  "priority__in",
  "search",
  "order_by",
  "order_by_direction",
];
const EVERYTHING_KEYS = Object.keys(queryFields);
/** Query pairs whose keys are mostly the ones the route declares, so values reach validation. */
const queryArbFor = (declared: string[]) =>
  fc.array(
    fc.tuple(
      fc.oneof(
        { arbitrary: fc.constantFrom(...declared), weight: 3 },
        { arbitrary: fc.constantFrom(...QUERY_KEYS), weight: 1 },
      ),
      queryValueArb,
    ),
    { maxLength: 8 },
  );
const queryArb = queryArbFor(QUERY_KEYS);
const cookieArb = fc
  .array(fc.tuple(fc.constantFrom("session", "theme", "other", "", " session"), fc.constantFrom(...COOKIE_VALUES)), {
    minLength: 1,
    maxLength: 4,
  })
  .map((pairs): [string, string] => ["cookie", pairs.map(([name, value]) => `${name}=${value}`).join("; ")]);
const headerArb = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom(...HEADER_NAMES), fc.constantFrom(...HEADER_VALUES)), weight: 4 },
  { arbitrary: cookieArb, weight: 1 },
);
const headersArb = fc.array(headerArb, { maxLength: 5 });
const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, "", -1, 1.5, 1e21, "x".repeat(1000), [], {}, true, "NaN"),
);

const randomBody = fc.oneof(
  { arbitrary: fc.constantFrom(...BODIES), weight: 6 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? ""), weight: 2 },
  { arbitrary: fc.uint8Array({ maxLength: 40 }), weight: 1 },
);

/** A method and path: mostly a registered route (with adversarial segments), sometimes anything. */
const routeArb: fc.Arbitrary<[string, string[]]> = fc.oneof(
  {
    arbitrary: fc
      .tuple(fc.constantFrom("POST", "PUT"), segmentArb, segmentArb)
      .map(([m, a, b]): [string, string[]] => [m, ["things", a, b]]),
    weight: 4,
  },
  { arbitrary: fc.constantFrom("GET", "POST").map((m): [string, string[]] => [m, ["notes"]]), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom("GET", "PATCH", "PUT", "DELETE"), segmentArb)
      .map(([m, a]): [string, string[]] => [m, ["notes", a]]),
    weight: 3,
  },
  { arbitrary: fc.tuple(methodArb, pathArb), weight: 2 },
);

const randomCaseArb: fc.Arbitrary<FuzzCase> = fc
  .record({ route: routeArb, headers: headersArb, body: randomBody })
  .chain(({ route, headers, body }) =>
    queryArbFor(route[1][0] === "notes" ? LIST_KEYS : route[1][0] === "things" ? EVERYTHING_KEYS : QUERY_KEYS).map(
      (query) => ({ route, query, headers, body }),
    ),
  )
  .map(({ route: [method, segments], query, headers, body }) => ({
    label: "random",
    method,
    segments,
    query,
    headers,
    body: hasBody(method) ? body : undefined,
  }));

type Mutation = (c: FuzzCase) => fc.Arbitrary<FuzzCase>;

const mutations: Mutation[] = [
  // A query parameter replaced, repeated, emptied, or an unknown one added.
  (c) =>
    fc.tuple(fc.nat(), queryValueArb).map(([i, value]) => {
      if (c.query.length === 0) return { ...c, query: [["unknown", value]] };
      const query = [...c.query];
      query[i % query.length] = [query[i % query.length]![0], value];
      return { ...c, query };
    }),
  (c) =>
    fc.nat().map((i) => {
      if (c.query.length === 0) return c;
      const pair = c.query[i % c.query.length]!;
      return { ...c, query: [...c.query, pair] };
    }),
  (c) => fc.tuple(fc.constantFrom(...QUERY_KEYS), queryValueArb).map((pair) => ({ ...c, query: [...c.query, pair] })),
  // A path segment replaced.
  (c) =>
    fc.tuple(fc.nat(), segmentArb).map(([i, segment]) => {
      const segments = [...c.segments];
      const at = 1 + (i % Math.max(1, segments.length - 1));
      segments[at] = segment;
      return { ...c, segments };
    }),
  // A header dropped, replaced or added.
  (c) => fc.nat().map((i) => ({ ...c, headers: c.headers.filter((_, j) => j !== i % Math.max(1, c.headers.length)) })),
  (c) => headerArb.map((header) => ({ ...c, headers: [...c.headers, header] })),
  (c) =>
    fc.constantFrom(...HEADER_VALUES).map((value) => ({
      ...c,
      headers: c.headers.map(([name, old]): [string, string] => [name, name === "content-type" ? value : old]),
    })),
  // The body: a member with a wrong value, a member removed, an extra member, or an adversarial body.
  (c) =>
    fc.tuple(fc.nat(), wrongValue).map(([i, value]) => {
      const data = parseObject(c.body);
      if (!data) return c;
      const keys = Object.keys(data);
      const key = keys.length > 0 ? keys[i % keys.length]! : "title";
      return { ...c, body: JSON.stringify({ ...data, [key]: value }) };
    }),
  (c) =>
    fc.nat().map((i) => {
      const data = parseObject(c.body);
      if (!data || Object.keys(data).length === 0) return c;
      const keys = Object.keys(data);
      delete data[keys[i % keys.length]!];
      return { ...c, body: JSON.stringify(data) };
    }),
  (c) =>
    fc
      .tuple(fc.constantFrom("__proto__", "constructor", "id", "extra", "toString", "prototype"), wrongValue)
      .map(([key, value]) => {
        if (!hasBody(c.method)) return c;
        const text = typeof c.body === "string" && c.body.startsWith("{") ? c.body : "{}";
        const member = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
        return { ...c, body: text === "{}" ? `{${member}}` : `{${member},${text.slice(1)}` };
      }),
  (c) =>
    fc.nat().map((cut) => {
      if (typeof c.body !== "string" || c.body.length < 2) return c;
      return { ...c, body: c.body.slice(0, cut % c.body.length) };
    }),
  (c) => randomBody.map((body) => ({ ...c, body: hasBody(c.method) ? body : undefined })),
  // Another method on the same path.
  (c) => methodArb.map((method) => ({ ...c, method, body: hasBody(method) ? c.body : undefined })),
];

const mutatedCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(validCase, fc.array(fc.integer({ min: 0, max: mutations.length - 1 }), { minLength: 1, maxLength: 3 }))
  .chain(([base, picks]) => {
    let arb: fc.Arbitrary<FuzzCase> = fc.constant({
      ...base,
      expect: undefined,
      label: base.label.replace("valid", "mutated"),
    });
    for (const pick of picks) arb = arb.chain((c) => mutations[pick]!(c));
    return arb;
  });

/** Every kind of case, weighted: a third valid, a third mutated, a third adversarial from scratch. */
const part = (name: string, value: string, boundary = "x") =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const FORM_BODIES: string[] = [
  `${part("title", "hello")}--x--\r\n`,
  part("title", "no closing boundary"),
  '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nunterminated',
  '--x\nContent-Disposition: form-data; name="title"\n\nLF only\n--x--\n',
  "--x\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--x--\r\n",
  "--x\r\nContent-Disposition: ;;;;\r\n\r\nv\r\n--x--\r\n",
  "--x\r\nno colon header\r\n\r\nv\r\n--x--\r\n",
  `--x\r\nContent-Disposition: form-data; name="${"n".repeat(100_000)}"\r\n\r\nv\r\n--x--\r\n`,
  `--x\r\nX-Pad: ${"p".repeat(200_000)}\r\nContent-Disposition: form-data; name="title"\r\n\r\nv\r\n--x--\r\n`,
  `${part("title", "t")}${part("tags", "a").repeat(20_000)}--x--\r\n`,
  `${part("title", "t")}--x\r\nContent-Disposition: form-data; name="doc"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n${"b".repeat(100_000)}\r\n--x--\r\n`,
  `${part("title", "t")}--x\r\nContent-Disposition: form-data; name="doc"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nPNG\r\n--x--\r\n`,
  `${part("title", "t")}--x\r\nContent-Disposition: form-data; name="doc"; filename="../../../etc/passwd"\r\nContent-Type: text/plain\r\n\r\nroot\r\n--x--\r\n`,
  `${part("title", "t")}--x\r\nContent-Disposition: form-data; name="title"; filename="f.txt"\r\nContent-Type: text/plain\r\n\r\nfile where text belongs\r\n--x--\r\n`,
  `${part("title", "t")}--x\r\nContent-Disposition: form-data; name="doc"\r\n\r\ntext where a file belongs\r\n--x--\r\n`,
  `${part("__proto__", "1")}${part("constructor", "2")}${part("title", "t")}--x--\r\n`,
  `${part("title", "a")}${part("title", "b")}--x--\r\n`,
  `${part("count", "1e309")}${part("title", "t")}${part("flag", "maybe")}--x--\r\n`,
  `${part("title", "t", "y")}--y--\r\n`,
  `preamble\r\n${part("title", "t")}--x--\r\nepilogue`,
  `--x\r\nContent-Disposition: form-data; name="title"\r\nContent-Type: multipart/mixed; boundary=z\r\n\r\n--z\r\n\r\ninner\r\n--z--\r\n--x--\r\n`,
  `--x\r\nContent-Disposition: form-data; name="ti\u0000tle"\r\n\r\nv\r\n--x--\r\n`,
  "--x--\r\n",
  "--x",
  "",
  "title=hello&count=3&flag=TRUE&tags=a&tags=b",
  "title=%zz&count=1e309&flag=maybe",
  "title=a&title=b",
  "=&&&=&title",
  "__proto__[polluted]=1&constructor[prototype][polluted]=1&title=x",
  `title=t&${"tags=a&".repeat(100_000)}`,
  `title=${"t".repeat(500_000)}`,
  "title=%F0%9F%98%80&tags=%ED%A0%80",
];
const FORM_TYPES = [
  "multipart/form-data; boundary=x",
  'multipart/form-data; boundary="x"',
  "multipart/form-data",
  "multipart/form-data; boundary=",
  `multipart/form-data; boundary=${"b".repeat(100)}`,
  "multipart/form-data; boundary=x; charset=latin1",
  "MULTIPART/FORM-DATA; BOUNDARY=x",
  "multipart/mixed; boundary=x",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=latin1",
  "application/json",
  "text/plain",
];

const randomFormCase: fc.Arbitrary<FuzzCase> = fc
  .record({
    type: fc.constantFrom(...FORM_TYPES),
    body: fc.oneof({ arbitrary: fc.constantFrom(...FORM_BODIES), weight: 4 }, { arbitrary: randomBody, weight: 1 }),
    headers: fc.array(headerArb, { maxLength: 2 }),
    query: queryArb,
  })
  .map(({ type, body, headers, query }) => ({
    label: "forms random",
    method: "POST",
    segments: ["forms"],
    query,
    headers: [["content-type", type] as [string, string], ...headers],
    body,
  }));

/** Every kind of case: a third valid, a third valid but mutated, a third adversarial from scratch. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { arbitrary: validCase, weight: 3 },
  { arbitrary: mutatedCase, weight: 3 },
  { arbitrary: randomCaseArb, weight: 2 },
  { arbitrary: randomFormCase, weight: 1 },
);

function hasBody(method: string): boolean {
  const upper = method.toUpperCase();
  return upper !== "GET" && upper !== "HEAD";
}

function parseObject(body: FuzzCase["body"]): Record<string, unknown> | null {
  if (typeof body !== "string") return null;
  try {
    const value = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- checking one case

/** Server internals that must never reach a client: stack frames, file paths, driver names. */
export const LEAK =
  /\/work\/|node:internal|node_modules|\.ts:\d+|\.js:\d+|\bat async\b|SqliteError|SQLITE_|better-sqlite3/;

const STATUS_OF_CODE = new Map<number, number>(Object.values(ERROR_CODES).map((entry) => [entry.code, entry.status]));
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).length;

export function describeCase(c: FuzzCase): string {
  const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  const body =
    c.body === undefined ? "none" : typeof c.body === "string" ? clip(JSON.stringify(c.body)) : `bytes ${c.body}`;
  return `${c.label}: ${c.method} ${clip(urlOf(c))}\n  headers ${clip(JSON.stringify(c.headers))}\n  body ${body}`;
}

function urlOf(c: FuzzCase): string {
  const query = c.query.map(([key, value]) => (value === null ? key : `${key}=${value}`)).join("&");
  return `/${c.segments.join("/")}${c.query.length > 0 ? `?${query}` : ""}`;
}

/** The request a case describes, or null when the fetch API itself refuses to build it. */
export function toRequest(c: FuzzCase): Request | null {
  try {
    return new Request(`http://localhost${urlOf(c)}`, {
      method: c.method,
      headers: c.headers,
      body: c.body === undefined ? undefined : (c.body as BodyInit),
    });
  } catch {
    return null;
  }
}

export interface CaseResult {
  /** The status, or "refused" when the fetch API would not build the request. */
  status: number | "refused";
  /** Time to the whole answer. */
  millis?: number;
  failure?: string;
}

const SLOW_CASE_MS = 3000;

/** Sends one case and checks every invariant; `failure` says which one broke. */
export async function runCase(target: FuzzTarget, c: FuzzCase): Promise<CaseResult> {
  const request = toRequest(c);
  if (!request) return { status: "refused" };
  if (target.notes().length > 150) target.reseed();
  const before = target.notes();
  let response: Response;
  const started = performance.now();
  try {
    response = await target.fetch(request);
  } catch (err) {
    return { status: 500, failure: `the router threw: ${(err as Error)?.stack ?? String(err)}` };
  }
  const status = response.status;
  const text = await response.text();
  const millis = performance.now() - started;
  const fail = (why: string): CaseResult => ({
    status,
    millis,
    failure: `${why}\n  status ${status}: ${text.slice(0, 500)}`,
  });

  if (status >= 500) return fail("a 5xx");
  // Generous for a loaded machine; what it catches is work that grows out of proportion (seconds).
  if (millis > SLOW_CASE_MS) return fail(`took ${millis.toFixed(0)} ms`);
  if (LEAK.test(text)) return fail("internal details in the body");
  if (Object.getOwnPropertyNames(Object.prototype).length !== PROTOTYPE_KEYS || ({} as any).polluted !== undefined) {
    return fail("Object.prototype was polluted");
  }
  const method = request.method;
  if (status >= 400 && method !== "HEAD") {
    const why = envelopeProblem(response, text, status);
    if (why) return fail(why);
  }

  const after = target.notes();
  const isNotes = c.segments[0] === "notes";
  const wrote = status >= 200 && status < 300 && WRITES.has(method) && isNotes;
  let body: any;
  if (wrote || c.expect) {
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      return fail("a 2xx body that is not JSON");
    }
  }
  const stored = wrote ? storedChangeProblem(method, c, body, before, after) : sameRows(before, after);
  if (stored) return fail(stored);
  if (c.expect) {
    const why = expectationProblem(c.expect, status, body, before);
    if (why) return fail(why);
  }
  return { status, millis };
}

function envelopeProblem(response: Response, text: string, status: number): string | null {
  if (!response.headers.get("content-type")?.includes("application/json")) return "a 4xx that is not JSON";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "a 4xx body that does not parse";
  }
  const envelope = errorEnvelopeSchema.safeParse(parsed);
  if (!envelope.success) return "a 4xx body outside the documented envelope";
  const { errors } = envelope.data;
  if (errors.length === 0) return "a 4xx with no error";
  if (!errors.every((error) => STATUS_OF_CODE.has(error.code))) return "an error code outside the table";
  if (!errors.some((error) => STATUS_OF_CODE.get(error.code) === status)) return "no error code matching the status";
  return null;
}

function sameRows(before: NoteRow[], after: NoteRow[]): string | null {
  return isDeepStrictEqual(before, after) ? null : "stored notes changed without a 2xx write";
}

/** A 2xx write must have changed exactly the one row its answer names, to exactly what it answered. */
function storedChangeProblem(method: string, c: FuzzCase, body: any, before: NoteRow[], after: NoteRow[]) {
  const row = body?.result as NoteRow | undefined;
  if (!row || typeof row.id !== "number") return "a 2xx write without the row in result";
  const others = (rows: NoteRow[]) => rows.filter((note) => note.id !== row.id);
  if (!isDeepStrictEqual(others(before), others(after))) return "a write changed other rows";
  const old = before.find((note) => note.id === row.id);
  const now = after.find((note) => note.id === row.id);
  if (method === "POST") {
    if (old) return "create answered an id that already existed";
    if (!isDeepStrictEqual(now, row)) return "create answered something other than what was stored";
  } else if (method === "DELETE") {
    if (now) return "delete left the row";
    if (!isDeepStrictEqual(old, row)) return "delete answered something other than what was stored";
  } else {
    if (!old) return "update answered a row that did not exist";
    if (!isDeepStrictEqual(now, row)) return "update answered something other than what was stored";
  }
  if (method !== "POST" && Number(decodeSegment(c.segments[1])) !== row.id) {
    return "a write touched another row than the path names";
  }
  return null;
}

function decodeSegment(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return segment ?? "";
  }
}

const NOTE_DEFAULTS = { body: null, priority: 3, done: false, tag: "a", due: null };

function expectationProblem(expectation: Expectation, status: number, body: any, before: NoteRow[]): string | null {
  const want = (expected: number) => (status === expected ? null : `expected ${expected}`);
  switch (expectation.kind) {
    case "echo":
      return (
        want(200) ?? (isDeepStrictEqual(body, plain(expectation.value)) ? null : "the echo differs from what was sent")
      );
    case "create": {
      const taken = before.some((note) => note.title === expectation.data.title);
      if (taken) return want(409);
      if (status !== 201) return "expected 201";
      const { id, ...rest } = body.result;
      return isDeepStrictEqual(rest, plain({ ...NOTE_DEFAULTS, ...expectation.data })) ? null : "created other values";
    }
    case "read":
    case "delete": {
      const old = before.find((note) => note.id === expectation.id);
      if (!old) return want(404);
      return want(200) ?? (isDeepStrictEqual(body.result, old) ? null : "answered another row");
    }
    case "update": {
      const old = before.find((note) => note.id === expectation.id);
      if (!old) return want(404);
      const title = expectation.data.title;
      if (before.some((note) => note.id !== expectation.id && note.title === title)) return want(409);
      const updated = plain({ ...old, ...expectation.data });
      return want(200) ?? (isDeepStrictEqual(body.result, updated) ? null : "updated wrongly");
    }
    case "list": {
      if (status !== 200) return "expected 200";
      const q = expectation.query;
      const expected = listOracle(before, q);
      const ids = body.result.map((note: NoteRow) => note.id);
      if (
        !isDeepStrictEqual(
          ids,
          expected.page.map((note) => note.id),
        )
      ) {
        return `listed ${JSON.stringify(ids)}, expected ${JSON.stringify(expected.page.map((note) => note.id))}`;
      }
      if (!isDeepStrictEqual(body.result, expected.page)) return "listed rows differ from the stored ones";
      const info = { count: expected.page.length, page: q.page, per_page: q.per_page, total_count: expected.total };
      return isDeepStrictEqual(body.result_info, info) ? null : `result_info ${JSON.stringify(body.result_info)}`;
    }
  }
}

/** A generated value as JSON would carry it (fast-check builds some objects without a prototype). */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** What the list endpoint must answer, computed from the stored rows. */
function listOracle(rows: NoteRow[], q: ListQuery): { page: NoteRow[]; total: number } {
  const fold = (text: string) => text.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
  const matching = rows.filter(
    (note) =>
      (q.done === undefined || note.done === q.done) &&
      (q.tag === undefined || note.tag === q.tag) &&
      (q.priority === undefined || note.priority === q.priority) &&
      (q.priority__gte === undefined || note.priority >= q.priority__gte) &&
      (q.priority__lte === undefined || note.priority <= q.priority__lte) &&
      (q.priority__in === undefined || q.priority__in.includes(note.priority)) &&
      (q.search === undefined ||
        [note.title, note.body].some((text) => text !== null && fold(text).includes(fold(q.search!)))),
  );
  const sign = q.order_by_direction === "desc" ? -1 : 1;
  const compare = (a: NoteRow, b: NoteRow): number => {
    const x = a[q.order_by];
    const y = b[q.order_by];
    const primary =
      typeof x === "string" ? Buffer.compare(Buffer.from(x), Buffer.from(y as string)) : (x as number) - (y as number);
    return primary !== 0 ? sign * primary : a.id - b.id;
  };
  const sorted = [...matching].sort(compare);
  const start = (q.page - 1) * q.per_page;
  return { page: sorted.slice(start, start + q.per_page), total: matching.length };
}

// ---------------------------------------------------------------- a run

export interface FuzzReport {
  adapter: AdapterName;
  cases: number;
  refused: number;
  /** Cases per status code. */
  statuses: Map<number, number>;
  /** Valid cases (with a known answer) that were checked. */
  valid: number;
  unhandledRejections: number;
  /** The slowest case's time to its whole answer, in ms. */
  slowest: number;
  failure?: string;
  millis: number;
}

/** Runs `runs` cases from `seed` on one adapter; stops at the first broken invariant. */
export async function runFuzz(adapter: AdapterName, runs: number, seed: number): Promise<FuzzReport> {
  const target = buildTarget(adapter);
  const report: FuzzReport = {
    adapter,
    cases: 0,
    refused: 0,
    statuses: new Map(),
    valid: 0,
    unhandledRejections: 0,
    slowest: 0,
    millis: 0,
  };
  const onRejection = () => report.unhandledRejections++;
  process.on("unhandledRejection", onRejection);
  const started = performance.now();
  try {
    await fc.assert(
      fc.asyncProperty(fuzzCase, async (c) => {
        const result = await runCase(target, c);
        report.cases++;
        if (result.status === "refused") report.refused++;
        else report.statuses.set(result.status, (report.statuses.get(result.status) ?? 0) + 1);
        if (c.expect) report.valid++;
        report.slowest = Math.max(report.slowest, result.millis ?? 0);
        if (result.failure) {
          report.failure ??= `${result.failure}\n${describeCase(c)}`;
          throw new Error(result.failure);
        }
      }),
      // No shrinking: the stored notes move on between runs, and the failing case is printed whole.
      { seed, numRuns: runs, endOnFailure: true },
    );
  } catch (err) {
    report.failure ??= (err as Error).message;
  }
  report.millis = performance.now() - started;
  await new Promise((resolve) => setImmediate(resolve));
  process.off("unhandledRejection", onRejection);
  target.close();
  return report;
}
