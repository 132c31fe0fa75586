import { describe, expect, it } from "vitest";
import { parseQuery } from "./parts";
import { eachUrlEncoded } from "./urlencoded";

/**
 * Names and values as the runtime's URLSearchParams reads them: what specroute's reader must match. The
 * leading "&" (an empty sequence, skipped) keeps the constructor from dropping a leading "?", which a
 * URL's own `searchParams` and a form body's parser keep.
 */
const asPlatform = (text: string) => [...new URLSearchParams(`&${text}`)];

function entries(text: string): Array<[string, string]> {
  const seen: Array<[string, string]> = [];
  eachUrlEncoded(text, (name, value) => seen.push([name, value]));
  return seen;
}

describe("query strings and form bodies read as URLSearchParams reads them", () => {
  const cases = [
    "",
    "a=1",
    "page=2&per_page=20&status=open&search=foo",
    "tag=a&tag=b&tag=",
    "a&b=&=c&&&d==e",
    "q=a+b%20c%2Bd",
    "name=%E2%82%AC%F0%9F%98%80",
    "bad=%ZZ&half=%E2%82&lone=%",
    "mixed=%E2%82%AC+%ZZ+x",
    "%61%62=%63",
    "k=v=w&x===",
    "=",
    "&",
    "a=%00b",
    "sp%20ace+key=1",
    "emoji=😀&é=ü",
  ];
  for (const text of cases) {
    it(JSON.stringify(text), () => {
      expect(entries(text)).toEqual(asPlatform(text));
    });
  }

  it("agrees with URLSearchParams on 3,000 random strings of the characters that matter", () => {
    const alphabet = ["a", "b", "=", "&", "+", "%", "2", "0", "E", "F", "B", "8", "Z", "€", " ", "?", "#"];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let run = 0; run < 3000; run++) {
      const length = Math.floor(random() * 24);
      let text = "";
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      expect(entries(text), JSON.stringify(text)).toEqual(asPlatform(text));
    }
  });

  it("keeps a leading ? of the query as a URL's searchParams does", () => {
    expect(entries("?a=1")).toEqual([...new URL("https://example.com/??a=1").searchParams]);
  });

  it("reads only the query of a URL, up to its fragment, grouping repeated names", () => {
    const query = parseQuery("https://example.com/tasks?tag=a&page=2&tag=b+c#tag=d");
    expect([...query]).toEqual([
      ["tag", ["a", "b c"]],
      ["page", "2"],
    ]);
    expect(parseQuery("https://example.com/tasks").size).toBe(0);
  });
});
