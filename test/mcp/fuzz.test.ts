/**
 * A seeded fuzz of `derun mcp` through real stdio: every request with an id gets exactly one
 * answer, broken messages get the JSON-RPC 2.0 error codes, and every error message is one
 * bounded line, whatever the input held. Seed: DERUN_FUZZ_SEED, else fixed.
 */
import { describe, expect, test } from "bun:test";
import { runDerun, tempDir } from "../helpers/cli.ts";
import { fuzzLines, inModernEra, MODERN_ENVELOPE_WITH_TASKS, type FuzzLine } from "../helpers/fuzz-messages.ts";
import { startRawServer } from "./_raw-server.ts";

const SEED = Number(process.env.DERUN_FUZZ_SEED ?? 20260614);
const COUNT = 3000;
const TIMEOUT = 120_000;
/** Longest error message allowed: a sentence plus at most ~100 quoted characters of input. */
const MAX_MESSAGE = 300;

/** Every error text in an answer: the JSON-RPC error's message, or a tool result's isError text. */
function errorTexts(answer: Record<string, any>): string[] {
  if (answer.error) return [String(answer.error.message)];
  const result = answer.result;
  if (result?.isError) return [result.content?.[0]?.text, result.structuredContent?.error?.message].map(String);
  return [];
}

function expectBounded(answer: Record<string, any>, context: string): void {
  for (const message of errorTexts(answer)) {
    if (message.length > MAX_MESSAGE || message.includes("\n")) {
      throw new Error(`${context}: unbounded or multi-line message (${message.length} chars): ${JSON.stringify(message.slice(0, 200))}`);
    }
  }
}

/** Send the lines, wait until every expected answer is in (a ping sent last marks the end), then check them. */
async function exchange(stateRoot: string, lines: readonly FuzzLine[]) {
  await using server = startRawServer(stateRoot);
  for (const { line } of lines) server.send(line);
  const withId = lines.flatMap(({ expect: e }) => (e.kind === "answer" ? [e.id] : []));
  const nulls = lines.filter(({ expect: e }) => e.kind === "null").length;
  const answered = (answers: readonly Record<string, any>[]) => {
    const ids = new Set(answers.map((a) => a.id));
    return withId.every((id) => ids.has(id)) && answers.filter((a) => a.id === null).length >= nulls;
  };
  server.send(JSON.stringify({ jsonrpc: "2.0", id: "last", method: "ping" }));
  // No request takes long here (no live session to wait on): once `last` is answered, the rest follow at once.
  await server.until((answers) => answers.some((a) => a.id === "last"));
  const missing = Promise.withResolvers<never>();
  const deadline = setTimeout(() => {
    const ids = new Set(server.answers.map((a) => a.id));
    const unanswered = lines.filter(({ expect: e }) => e.kind === "answer" && !ids.has(e.id)).slice(0, 5);
    missing.reject(
      new Error(
        `unanswered requests, e.g.: ${unanswered.map(({ line }) => line.slice(0, 120)).join(" | ")}; null-id errors ` +
          `${server.answers.filter((a) => a.id === null).length} of ${nulls}`,
      ),
    );
  }, 20_000);
  try {
    await Promise.race([server.until(answered), missing.promise]);
  } finally {
    clearTimeout(deadline);
  }
  const status = await server.end();
  return { answers: server.answers, status };
}

function check(lines: readonly FuzzLine[], answers: readonly Record<string, any>[]): void {
  const byId = new Map<unknown, Record<string, any>[]>();
  for (const answer of answers) byId.set(answer.id, [...(byId.get(answer.id) ?? []), answer]);
  const nullCodes: number[] = [];
  for (const { line, expect: e } of lines) {
    const context = line.slice(0, 120);
    if (e.kind === "answer") {
      const got = byId.get(e.id) ?? [];
      if (got.length !== 1) throw new Error(`${got.length} answers to ${context}`);
      const answer = got[0]!;
      expect(answer.jsonrpc).toBe("2.0");
      if (answer.error) {
        if (!e.codes.includes(answer.error.code))
          throw new Error(
            `code ${answer.error.code} (want ${e.codes.join(" or ")}) for ${context}: ${String(answer.error.message).slice(0, 200)}`,
          );
      } else if (e.mustFail) {
        throw new Error(`success for ${context}`);
      }
      expectBounded(answer, context);
    } else if (e.kind === "null") {
      nullCodes.push(e.code);
    }
  }
  const nullAnswers = answers.filter((a) => a.id === null);
  for (const answer of nullAnswers) expectBounded(answer, "id null");
  expect(nullAnswers.map((a) => a.error?.code).sort()).toEqual(nullCodes.sort());
  // Nothing answered twice, nothing answered that was not asked.
  const asked = new Set<unknown>([...lines.flatMap(({ expect: e }) => (e.kind === "answer" ? [e.id] : [])), null, "last"]);
  for (const answer of answers)
    if (!asked.has(answer.id)) throw new Error(`answer to nothing asked: ${JSON.stringify(answer).slice(0, 200)}`);
}

describe("derun mcp under hostile input", () => {
  test(
    "the messages named in the issue get their JSON-RPC answers",
    async () => {
      using root = tempDir();
      const lines: FuzzLine[] = [
        { line: "not json", expect: { kind: "null", code: -32700 } },
        { line: "", expect: { kind: "null", code: -32700 } },
        { line: '[{"jsonrpc":"2.0","id":90,"method":"ping"}]', expect: { kind: "null", code: -32600 } },
        {
          line: '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":1}',
          expect: { kind: "answer", id: 2, codes: [-32602], mustFail: true },
        },
        {
          line: '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}',
          expect: { kind: "answer", id: 3, codes: [-32602], mustFail: true },
        },
        {
          line: '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":5}}',
          expect: { kind: "answer", id: 4, codes: [-32602], mustFail: true },
        },
        { line: '{"jsonrpc":"2.0","id":5,"method":"ping"}', expect: { kind: "answer", id: 5, codes: [] } },
      ];
      const { answers, status } = await exchange(root.path, lines);
      check(lines, answers);
      expect(status).toBe(0);
    },
    TIMEOUT,
  );

  test(
    `${COUNT} fuzzed messages (seed ${SEED}): one answer per request, right codes, bounded one-line messages`,
    async () => {
      using root = tempDir();
      const done = await runDerun(["run", "--session-id", "done", "--", "sh", "-c", "printf 'h\\303\\251llo \\360\\237\\231\\202'"], {
        stateRoot: root.path,
      });
      expect(done.exitCode).toBe(0);
      const lines = fuzzLines(SEED, COUNT, "done");
      const { answers, status } = await exchange(root.path, lines);
      check(lines, answers);
      expect(status).toBe(0);
    },
    TIMEOUT,
  );

  test(
    `the same ${COUNT} fuzzed messages in the 2026-07-28 era (each with its _meta envelope): the same answers`,
    async () => {
      using root = tempDir();
      const done = await runDerun(["run", "--session-id", "done", "--", "sh", "-c", "printf 'h\\303\\251llo'"], {
        stateRoot: root.path,
      });
      expect(done.exitCode).toBe(0);
      const lines = inModernEra(fuzzLines(SEED, COUNT, "done"));
      expect(lines.filter(({ line }) => line.includes("2026-07-28")).length).toBeGreaterThan(COUNT / 2);
      const { answers, status } = await exchange(root.path, lines);
      check(lines, answers);
      // Answered in the era asked: every successful result names the server, as 2026-07-28 has it.
      const results = answers.filter((a) => a.result !== undefined && a.id !== "last");
      expect(results.length).toBeGreaterThan(0);
      for (const answer of results) expect(answer.result._meta?.["io.modelcontextprotocol/serverInfo"]?.name).toBe("derun");
      expect(status).toBe(0);
    },
    TIMEOUT,
  );

  test(
    `the same ${COUNT} fuzzed messages from a 2026-07-28 client that declares the tasks extension: the same answers`,
    async () => {
      using root = tempDir();
      const done = await runDerun(["run", "--session-id", "done", "--", "sh", "-c", "printf 'h\\303\\251llo'"], {
        stateRoot: root.path,
      });
      expect(done.exitCode).toBe(0);
      // The fuzzed waits are short; two long ones make sure some become tasks among them.
      const long = (id: string, name: string, args: object): FuzzLine => ({
        line: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
        expect: { kind: "answer", id, codes: [] },
      });
      const fuzzed = fuzzLines(SEED, COUNT, "done");
      const half = COUNT / 2;
      const mixed = [
        ...fuzzed.slice(0, half),
        long("long-1", "derun_wait_command", { timeout_ms: 60_000 }),
        ...fuzzed.slice(half),
        long("long-2", "derun_wait_output", { session_id: "done", timeout_ms: 60_000 }),
      ];
      const lines = inModernEra(mixed, MODERN_ENVELOPE_WITH_TASKS);
      const { answers, status } = await exchange(root.path, lines);
      check(lines, answers);
      // Some waits became tasks (answered at once), the others were answered in their call.
      const tasks = answers.filter((a) => a.result?.resultType === "task");
      expect(tasks.length).toBeGreaterThan(0);
      for (const { result } of tasks) expect(result).toMatchObject({ status: "working", ttlMs: 600_000 });
      expect(status).toBe(0);
    },
    TIMEOUT,
  );
});
