/**
 * A seeded generator of JSON-RPC lines for fuzzing `derun mcp`: well-formed requests with random
 * arguments, and every kind of broken message a client or a bad pipe can produce. Each line comes
 * with what JSON-RPC 2.0 (and MCP on top of it) requires the server to answer.
 */

/** What the server must answer to one line. */
export type Expectation =
  /** Exactly one answer carrying this id; if it is an error, its code is one of `codes`. */
  | { readonly kind: "answer"; readonly id: string | number; readonly codes: readonly number[]; readonly mustFail?: boolean }
  /** Exactly one error answer with `id: null` and this code (the id could not be read). */
  | { readonly kind: "null"; readonly code: number }
  /** Nothing: a notification or a response. */
  | { readonly kind: "none" };

export interface FuzzLine {
  readonly line: string;
  readonly expect: Expectation;
}

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOLS = ["derun_list_sessions", "derun_get_session", "derun_read_output", "derun_wait_output"];
const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
const METHOD_NOT_FOUND = -32601;

export function fuzzLines(seed: number, count: number, sessionId: string): FuzzLine[] {
  const rand = random(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  let nextId = 1;
  const freshId = (): string | number => (rand() < 0.7 ? nextId++ : `s-${nextId++}`);

  const text = (max: number): string => {
    const alphabet = ["a", "Z", "0", " ", '"', "\\", "\n", "é", "🙂", "\u0000", "\u2028", "{", "]"];
    let s = "";
    for (let i = int(max); i > 0; i--) s += pick(alphabet);
    return s;
  };
  /** Any JSON value, shallow. */
  const value = (): unknown =>
    pick<() => unknown>([
      () => int(100),
      () => -int(100) - 0.5,
      () => 1e40,
      () => -1.5,
      () => "0x10",
      () => String(int(1000)),
      () => text(12),
      () => (rand() < 0.1 ? "x".repeat(100_000 + int(200_000)) : text(40)),
      () => null,
      () => rand() < 0.5,
      () => [int(3)],
      () => ({ k: int(3) }),
      () => sessionId,
      () => "text",
      () => "base64",
      () => 2 ** 53 + 2,
    ])();

  const toolArguments = (): unknown => {
    if (rand() < 0.05) return value();
    const args: Record<string, unknown> = {};
    for (const key of ["session_id", "cursor", "max_bytes", "encoding", "timeout_ms", "state", "limit", "extra"]) {
      if (rand() < 0.4) args[key] = value();
    }
    if (rand() < 0.5) args.session_id = rand() < 0.7 ? sessionId : value();
    if ("timeout_ms" in args && typeof args.timeout_ms === "number") args.timeout_ms = Math.min(args.timeout_ms, 50);
    return args;
  };

  const request = (method: string, params?: unknown, extra: Record<string, unknown> = {}) => {
    const id = freshId();
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method, ...extra };
    if (params !== undefined) message.params = params;
    return { id, line: JSON.stringify(message) };
  };

  const kinds: Array<[number, () => FuzzLine]> = [
    [
      30,
      () => {
        const name = pick(TOOLS);
        const args = toolArguments();
        const { id, line } = request("tools/call", { name, arguments: args });
        // Arguments that are not an object break the request's params; anything else is a tool result.
        return { line, expect: { kind: "answer", id, codes: [INVALID_PARAMS] } };
      },
    ],
    [
      6,
      () => {
        const { id, line } = request("tools/call", { name: pick<unknown>([5, null, true, ["x"], { n: 1 }]), arguments: {} });
        return { line, expect: { kind: "answer", id, codes: [INVALID_PARAMS], mustFail: true } };
      },
    ],
    [
      4,
      () => {
        const { id, line } = request("tools/call", { name: text(30) + pick(["", "x".repeat(50_000)]), arguments: {} });
        return { line, expect: { kind: "answer", id, codes: [INVALID_PARAMS] } };
      },
    ],
    [
      6,
      () => {
        const { id, line } = request(pick(["tools/list", "ping", "initialize"]), rand() < 0.5 ? {} : { cursor: value(), _meta: value() });
        return { line, expect: { kind: "answer", id, codes: [INVALID_PARAMS] } };
      },
    ],
    [
      6,
      () => {
        const { id, line } = request(
          pick(["tools/list", "ping", "tools/call", "initialize"]),
          pick<unknown>([1, "x", [1, 2], null, true, 0]),
        );
        return { line, expect: { kind: "answer", id, codes: [INVALID_PARAMS, INVALID_REQUEST], mustFail: true } };
      },
    ],
    [
      4,
      () => {
        const { id, line } = request(pick(["tools/remove", "nope", "", text(20)]));
        return { line, expect: { kind: "answer", id, codes: [METHOD_NOT_FOUND, INVALID_REQUEST], mustFail: true } };
      },
    ],
    [
      8,
      () => {
        const valid = request("ping").line;
        let broken = pick([
          valid.slice(0, int(valid.length)),
          text(30),
          "",
          "   ",
          "{",
          '{"jsonrpc":"2.0","id":1,',
          "nul",
          "\u00ff\u00fe",
        ]).replaceAll("\n", " ");
        try {
          JSON.parse(broken); // random text that happens to be JSON ("0"): make it not
          broken += "{";
        } catch {}
        return { line: broken, expect: { kind: "null", code: PARSE_ERROR } };
      },
    ],
    [
      4,
      () => {
        const items = Array.from({ length: int(4) }, () => JSON.parse(request("ping").line));
        return { line: JSON.stringify(items), expect: { kind: "null", code: INVALID_REQUEST } };
      },
    ],
    [3, () => ({ line: JSON.stringify(pick<unknown>([1, "x", null, true, 2.5])), expect: { kind: "null", code: INVALID_REQUEST } })],
    [
      4,
      () => {
        const { id, line } = request(
          "ping",
          undefined,
          pick<Record<string, unknown>>([{ jsonrpc: "1.0" }, { jsonrpc: 2 }, { jsonrpc: undefined }]),
        );
        return { line, expect: { kind: "answer", id, codes: [INVALID_REQUEST], mustFail: true } };
      },
    ],
    [
      3,
      () => {
        const id = freshId();
        const line = JSON.stringify({ jsonrpc: "2.0", id, method: pick<unknown>([5, null, ["ping"], {}]) });
        return { line, expect: { kind: "answer", id, codes: [INVALID_REQUEST], mustFail: true } };
      },
    ],
    [
      3,
      () => {
        const line = JSON.stringify({ jsonrpc: "2.0", id: pick<unknown>([null, 1.5, true, {}, []]), method: "ping" });
        return { line, expect: { kind: "null", code: INVALID_REQUEST } };
      },
    ],
    [
      3,
      () => {
        const id = freshId();
        return { line: JSON.stringify({ jsonrpc: "2.0", id }), expect: { kind: "answer", id, codes: [INVALID_REQUEST], mustFail: true } };
      },
    ],
    [
      5,
      () => {
        const method = pick(["notifications/initialized", "notifications/unknown", "tools/call", "notifications/progress"]);
        const line = JSON.stringify({ jsonrpc: "2.0", method, ...(rand() < 0.5 ? { params: value() } : {}) });
        return { line, expect: { kind: "none" } };
      },
    ],
    [
      3,
      () => {
        const line = JSON.stringify({
          jsonrpc: "2.0",
          id: nextId++ + 1_000_000,
          ...(rand() < 0.5 ? { result: {} } : { error: { code: 1, message: "x" } }),
        });
        return { line, expect: { kind: "none" } };
      },
    ],
  ];
  const total = kinds.reduce((n, [weight]) => n + weight, 0);
  const lines: FuzzLine[] = [];
  for (let i = 0; i < count; i++) {
    let roll = rand() * total;
    const [, make] = kinds.find(([weight]) => (roll -= weight) < 0) ?? kinds[0]!;
    lines.push(make());
  }
  return lines;
}

/** The `_meta` envelope every request of the 2026-07-28 revision carries. */
export const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
} as const;

/** The same envelope from a client that declares the tasks extension (long waits may become tasks). */
export const MODERN_ENVELOPE_WITH_TASKS = {
  ...MODERN_ENVELOPE,
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
} as const;

/** Methods the 2026-07-28 revision removed: `ping` is not found there, `initialize` is the other era (-32022). */
const NOT_IN_MODERN_ERA: Readonly<Record<string, readonly number[]>> = { ping: [METHOD_NOT_FOUND], initialize: [-32022] };

/**
 * The same lines as a 2026-07-28 client sends them: each message whose params are an object (or
 * absent) carries the envelope in its `_meta`; what the server must answer does not change, except
 * for the methods that revision removed (a connection serves one era, the MCP SDK's serveStdio).
 */
export function inModernEra(lines: readonly FuzzLine[], envelope: Readonly<Record<string, unknown>> = MODERN_ENVELOPE): FuzzLine[] {
  return lines.map((fuzz) => {
    let value: unknown;
    try {
      value = JSON.parse(fuzz.line);
    } catch {
      return fuzz;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value) || !("method" in value)) return fuzz;
    const message = value as Record<string, unknown>;
    const params = "params" in message ? message.params : {};
    if (typeof params !== "object" || params === null || Array.isArray(params)) return fuzz;
    const meta = "_meta" in params ? (params as { _meta: unknown })._meta : {};
    if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return fuzz;
    const line = JSON.stringify({ ...message, params: { ...params, _meta: { ...meta, ...envelope } } });
    const removed =
      typeof message.method === "string" && Object.hasOwn(NOT_IN_MODERN_ERA, message.method)
        ? NOT_IN_MODERN_ERA[message.method]
        : undefined;
    if (removed === undefined || fuzz.expect.kind !== "answer") return { ...fuzz, line };
    return { line, expect: { ...fuzz.expect, codes: [...fuzz.expect.codes, ...removed] } };
  });
}
