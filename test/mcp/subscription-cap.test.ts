/**
 * Every followed resource is a loop of its own and any session id parses, so `derun mcp` follows at
 * most MAX_SUBSCRIPTIONS at once: the next `resources/subscribe` is refused in one line (the ones
 * before it, and a subscription again to one of them, still answered), and after an unsubscribe one
 * more is taken. Over real stdio, line by line.
 */
import { expect, test } from "bun:test";
import { MAX_SUBSCRIPTIONS } from "../../src/mcp/subscriptions.ts";
import { tempDir } from "../helpers/cli.ts";
import { startRawServer } from "./_raw-server.ts";

test("resources followed at once are capped; an unsubscribe makes room", async () => {
  using state = tempDir();
  await using server = startRawServer(state.path);
  const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cap", version: "0" } };
  server.send(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: init }));
  server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const subscribe = (id: string, uri: string) =>
    server.send(JSON.stringify({ jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } }));
  for (let i = 0; i <= MAX_SUBSCRIPTIONS; i++) subscribe(`s${i}`, `derun://session/none-${i}`);
  subscribe("again", "derun://session/none-0");
  const answer = (id: string) => server.answers.find((a) => a.id === id);
  await server.until(() => answer("again") !== undefined && answer(`s${MAX_SUBSCRIPTIONS}`) !== undefined);
  for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) expect(answer(`s${i}`)).toMatchObject({ result: {} });
  expect(answer("again")).toMatchObject({ result: {} });
  const refused = answer(`s${MAX_SUBSCRIPTIONS}`)!;
  expect(refused.error.code).toBe(-32602);
  expect(refused.error.message).toContain(`at most ${MAX_SUBSCRIPTIONS} resources`);

  server.send(JSON.stringify({ jsonrpc: "2.0", id: "un", method: "resources/unsubscribe", params: { uri: "derun://session/none-1" } }));
  subscribe("room", `derun://session/none-${MAX_SUBSCRIPTIONS}`);
  await server.until(() => answer("room") !== undefined);
  expect(answer("room")).toMatchObject({ result: {} });
  expect(await server.end()).toBe(0);
}, 60_000);
