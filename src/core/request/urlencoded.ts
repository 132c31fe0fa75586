// application/x-www-form-urlencoded text (a query string, a form body) split into names and values as
// URLSearchParams splits it, in plain string operations: on Workers, URLSearchParams is the runtime's own
// object, and reading it entry by entry crosses into the runtime once per entry.

/**
 * Calls `visit` with each name and value of `text`, in order, decoded as URLSearchParams decodes them:
 * `+` is a space, percent escapes are UTF-8, a malformed escape stays as written, and an empty
 * sequence between `&`s is skipped.
 *
 * @example
 * eachUrlEncoded("page=2&tag=a+b", (name, value) => console.log(name, value)); // page 2, tag a b
 */
export function eachUrlEncoded(
  text: string,
  visit: (name: string, value: string) => void,
  start = 0,
  end = text.length,
): void {
  let from = start;
  while (from < end) {
    let amp = text.indexOf("&", from);
    if (amp < 0 || amp > end) amp = end;
    if (amp > from) {
      const eq = text.indexOf("=", from);
      if (eq >= 0 && eq < amp) visit(decodeComponent(text.slice(from, eq)), decodeComponent(text.slice(eq + 1, amp)));
      else visit(decodeComponent(text.slice(from, amp)), "");
    }
    from = amp + 1;
  }
}

/** One name or value: as it is when it holds no `+` or `%` (the common case), else decoded. */
function decodeComponent(raw: string): string {
  const plus = raw.indexOf("+") >= 0;
  const percent = raw.indexOf("%") >= 0;
  if (!plus && !percent) return raw;
  const spaced = plus ? raw.replace(/\+/g, " ") : raw;
  if (!percent) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape or bytes that are not UTF-8: URLSearchParams keeps the one and replaces the other.
    return new URLSearchParams(`v=${raw}`).get("v") ?? "";
  }
}
