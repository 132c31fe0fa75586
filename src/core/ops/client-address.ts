import { InputValidationException } from "../../errors/exceptions";

/** Longest text read as an address: an IPv6 address with an embedded IPv4 address and a zone stays well under it. */
const MAX_ADDRESS = 64;

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/**
 * The rate limit key of an IP address written as text: an IPv4 address in dotted decimal, an IPv6 address
 * as its /64 network (one subscriber's allocation, which a client can move within at will), an
 * IPv4-mapped IPv6 address as the IPv4 address. One address written two ways is one key. Undefined for
 * anything else: a longer text, a host name, a port, garbage.
 *
 * @example
 * addressKey("2001:DB8:1:2::7"); // "2001:db8:1:2::/64"
 * addressKey("::ffff:192.0.2.1"); // "192.0.2.1"
 * addressKey("x".repeat(4000)); // undefined
 */
export function addressKey(text: string): string | undefined {
  if (text.length > MAX_ADDRESS) return undefined;
  const v4 = ipv4(text);
  if (v4 !== undefined) return v4.join(".");
  const groups = ipv6(text.toLowerCase());
  if (groups === undefined) return undefined;
  // ::ffff:a.b.c.d, as a dual-stack socket reports an IPv4 client.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/**
 * The entry `hops` from the end of an `X-Forwarded-For` list: the address the farthest of `hops` trusted
 * proxies saw, each having appended its peer's. Undefined when the list has fewer entries.
 *
 * @example
 * forwardedFor("198.51.100.1, 203.0.113.5, 10.0.0.2", 2); // "203.0.113.5"
 */
export function forwardedFor(header: string, hops: number): string | undefined {
  let end = header.length;
  for (let hop = 1; hop <= hops; hop++) {
    const comma = header.lastIndexOf(",", end - 1);
    if (hop === hops) return header.slice(comma + 1, end).trim();
    if (comma === -1) return undefined;
    end = comma;
  }
  return undefined;
}

/** An IPv4 address and a port (`192.0.2.1:443`), and a bracketed IPv6 address with an optional one (`[2001:db8::1]:443`). */
const V4_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/;
const V6_BRACKETED = /^\[([0-9A-Fa-f:.%]+)\](?::(\d{1,5}))?$/;

/**
 * The address in an entry a proxy wrote with the client's port, as some do in `X-Forwarded-For` (Azure's
 * `ip:port`, a bracketed `[v6]:port`); the entry as it is otherwise (a bare IPv6 address keeps its
 * colons). A port past 65535 is no port: the entry is returned whole, and is no address.
 *
 * @example
 * withoutPort("198.51.100.7:50123"); // "198.51.100.7"
 * withoutPort("[2001:db8::1]:443"); // "2001:db8::1"
 * withoutPort("2001:db8::1"); // "2001:db8::1"
 */
export function withoutPort(entry: string): string {
  // Stryker disable next-line ConditionalExpression: equivalent, a longer entry holds no address addressKey takes (64 characters) with a port, so only the regular expressions' work changes
  if (entry.length > MAX_ADDRESS + 8) return entry;
  const match = V4_PORT.exec(entry) ?? V6_BRACKETED.exec(entry);
  if (match === null) return entry;
  const port = match[2];
  return port === undefined || Number(port) <= 65535 ? match[1]! : entry;
}

function ipv4(text: string): number[] | undefined {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  const octets = match.slice(1).map((octet) => (octet.length > 1 && octet.startsWith("0") ? 256 : Number(octet)));
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (lower case, a zone after `%` ignored); undefined when it is none. */
function ipv6(text: string): number[] | undefined {
  const zone = text.indexOf("%");
  const address = zone === -1 ? text : text.slice(0, zone);
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const parts = halves.map((half) => (half === "" ? [] : half.split(":")));
  const last = parts[parts.length - 1]!;
  // An IPv4 address may close the address (::ffff:192.0.2.1): two groups.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, ipv4 of no group (undefined) finds no address either
  const tail = last.length > 0 ? ipv4(last[last.length - 1]!) : undefined;
  if (tail !== undefined)
    last.splice(-1, 1, ((tail[0]! << 8) | tail[1]!).toString(16), ((tail[2]! << 8) | tail[3]!).toString(16));
  if (!parts.every((groups) => groups.every((group) => HEX_GROUP.test(group)))) return undefined;
  const head = parts[0]!.map((group) => Number.parseInt(group, 16));
  if (parts.length === 1) return head.length === 8 ? head : undefined;
  const rest = parts[1]!.map((group) => Number.parseInt(group, 16));
  const missing = 8 - head.length - rest.length;
  return missing >= 1 ? [...head, ...Array<number>(missing).fill(0), ...rest] : undefined;
}

/**
 * The 400 for a request whose connection the runtime names no address for (the client reset or closed it
 * while the request waited, or it is a Unix socket's): what counts by address cannot count it, so it is not
 * served, as a request left uncounted would run as often as a client cares to vanish.
 */
export function noConnectionAddress(): InputValidationException {
  return new InputValidationException(
    "The connection has no client address (the client closed it, or the server listens on a socket without " +
      "addresses): a request that cannot be counted by address is not served",
    null,
  );
}
