/**
 * completion/complete for the resource templates' arguments and the prompts' `session_id`: session
 * ids newest first after `last`, command numbers of the session chosen, at most 100 values.
 */
import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Store } from "../../src/core/store.ts";
import { connectInMemory, sessionOptions } from "../helpers/harness.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

async function session(store: Store, id: string, commands = 0): Promise<void> {
  // Each session starts in a millisecond of its own, so newest first is one order.
  for (const ms = Date.now(); Date.now() === ms; ) await Bun.sleep(1);
  const writer = await store.create({ ...sessionOptions(id, "posix-pty"), recordsCommands: commands > 0 });
  writer.append("pty", utf8("$ true\r\n"));
  for (let number = 1; number <= commands; number++) {
    writer.recordCommand({
      number,
      command_line: "true",
      cwd: "/",
      prompt_start: null,
      prompt_end: null,
      output_start: 0,
      output_end: 8,
      started_at: `2026-01-01T00:00:0${number}.000Z`,
      ended_at: `2026-01-01T00:00:0${number}.500Z`,
      exit_code: 0,
      missing: [],
    });
  }
  await writer.finalize({ state: "exited", exit_code: 0, command_marks_seen: commands > 0 });
  await writer[Symbol.asyncDispose]();
}

const complete = async (client: Client, ref: object, name: string, value: string, args?: Record<string, string>) =>
  (
    await client.complete({
      ref: ref as never,
      argument: { name, value },
      ...(args ? { context: { arguments: args } } : {}),
    })
  ).completion;

const SESSION = { type: "ref/resource", uri: "derun://session/{id}" };
const COMMAND = { type: "ref/resource", uri: "derun://session/{id}/command/{n}" };

describe("completion/complete", () => {
  test("session ids (templates and prompts), newest first after last; command numbers of the chosen session", async () => {
    await using h = await connectInMemory();
    expect(h.client.getServerCapabilities()?.completions).toEqual({});
    // No session yet: nothing to offer, not even `last`.
    expect(await complete(h.client, SESSION, "id", "")).toEqual({ values: [], total: 0, hasMore: false });
    await session(h.store, "build-1");
    await session(h.store, "shell-2", 3);
    await session(h.store, "build-3");

    const all = await complete(h.client, SESSION, "id", "");
    expect(all).toEqual({ values: ["last", "build-3", "shell-2", "build-1"], total: 4, hasMore: false });
    expect(await complete(h.client, SESSION, "id", "bu")).toEqual({ values: ["build-3", "build-1"], total: 2, hasMore: false });
    expect((await complete(h.client, COMMAND, "id", "sh")).values).toEqual(["shell-2"]);
    for (const name of ["why-did-it-fail", "summarize-session"]) {
      expect((await complete(h.client, { type: "ref/prompt", name }, "session_id", "shell")).values).toEqual(["shell-2"]);
    }

    expect((await complete(h.client, COMMAND, "n", "", { id: "shell-2" })).values).toEqual(["last", "3", "2", "1"]);
    expect((await complete(h.client, COMMAND, "n", "2", { id: "shell-2" })).values).toEqual(["2"]);
    // A session without commands, one that does not exist, or none chosen yet: nothing.
    for (const args of [{ id: "build-1" }, { id: "nope" }, undefined]) {
      expect((await complete(h.client, COMMAND, "n", "", args)).values).toEqual([]);
    }
    // Arguments derun does not know.
    expect((await complete(h.client, SESSION, "other", "")).values).toEqual([]);
    expect((await complete(h.client, { type: "ref/prompt", name: "why-did-it-fail" }, "other", "")).values).toEqual([]);
  });

  test("at most 100 values; total counts every match and hasMore says some were left out", async () => {
    await using h = await connectInMemory();
    for (let i = 1; i <= 120; i++) await session(h.store, `s-${String(i).padStart(3, "0")}`);
    const all = await complete(h.client, SESSION, "id", "");
    expect(all.values.length).toBe(100);
    expect(all.total).toBe(121);
    expect(all.hasMore).toBe(true);
    const some = await complete(h.client, SESSION, "id", "s-11");
    expect(some.values).toEqual(Array.from({ length: 10 }, (_, i) => `s-11${9 - i}`));
    expect(some).toMatchObject({ total: 10, hasMore: false });
  });
});
