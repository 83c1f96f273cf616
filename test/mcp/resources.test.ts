/**
 * Resources and prompts over stdio, through the SDK's own client: sessions and commands listed and
 * read as derun:// resources (the same text the tools answer), a new session announced by
 * notifications/resources/list_changed, a live session's new output by notifications/resources/updated
 * after resources/subscribe, and the prompts filled in from the queries.
 */
import { expect, test } from "bun:test";
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import * as fs from "node:fs";
import * as path from "node:path";
import { derunArgv, derunEnv, runDerun, tempDir } from "../helpers/cli.ts";
import { connectAgent } from "../helpers/agent.ts";

/** A promise for the next call of the handler it makes, and the handler. */
function nextEvent<T>(): { next: () => Promise<T>; handler: (value: T) => void } {
  const waiting: Array<(value: T) => void> = [];
  const queued: T[] = [];
  return {
    next: () => (queued.length > 0 ? Promise.resolve(queued.shift()!) : new Promise<T>((resolve) => waiting.push(resolve))),
    handler: (value) => {
      const resolve = waiting.shift();
      if (resolve) resolve(value);
      else queued.push(value);
    },
  };
}

test("resources: listed, read, announced, updated; prompts filled in", async () => {
  using state = tempDir();
  await runDerun(["run", "--session-id", "ok", "--", "sh", "-c", "echo hello there"], { stateRoot: state.path });
  await runDerun(["run", "--session-id", "bad", "--", "sh", "-c", "echo compiling; echo 'error: cannot find module x'; exit 3"], {
    stateRoot: state.path,
  });
  await using agent = await connectAgent(state.path);
  const { client } = agent;
  expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true, listChanged: true }, prompts: {} });

  const listed = await client.listResources();
  expect(listed.resources.map((r) => r.uri)).toEqual(["derun://last-failure", "derun://last", "derun://session/bad", "derun://session/ok"]);
  expect(listed.resources[2]).toMatchObject({
    name: "bad",
    title: "sh -c \"echo compiling; echo 'error: cannot find module x'; exit 3\"",
    description: "session bad: exited 3",
  });
  const templates = await client.listResourceTemplates();
  expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(["derun://session/{id}", "derun://session/{id}/command/{n}"]);

  const failure = await client.readResource({ uri: "derun://last-failure" });
  const failureText = (failure.contents[0] as { text: string }).text;
  expect(failureText).toStartWith("session bad: exited 3 · ");
  expect(failureText).toContain("\n2:error: cannot find module x");
  // The same text as the tool's answer.
  expect(failureText).toBe((await agent.call("derun_last_failure")).text);
  const ok = await client.readResource({ uri: "derun://session/ok" });
  expect((ok.contents[0] as { text: string }).text).toEndWith("\nhello there");
  const last = await client.readResource({ uri: "derun://last" });
  expect((last.contents[0] as { text: string }).text).toStartWith("session bad: ");
  await expect(client.readResource({ uri: "derun://session/nope" })).rejects.toThrow(/-32002|session not found/);
  await expect(client.readResource({ uri: "https://example.com/" })).rejects.toThrow(/unknown resource/);

  // A session appearing: the list changed.
  const listChanged = nextEvent<unknown>();
  client.setNotificationHandler(ResourceListChangedNotificationSchema, listChanged.handler);
  const live = Bun.spawn([...derunArgv(), "run", "--session-id", "live", "--", "sh", "-c", 'read line; echo "got $line"; read line'], {
    env: derunEnv(state.path),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  await listChanged.next();
  expect((await client.listResources()).resources.map((r) => r.uri)).toContain("derun://session/live");

  // Subscribed to the live session: its new output is announced.
  const updated = nextEvent<{ params: { uri: string } }>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, updated.handler);
  await client.subscribeResource({ uri: "derun://session/live" });
  live.stdin.write("one\n");
  await live.stdin.flush();
  for (;;) {
    const event = await updated.next();
    expect(event.params.uri).toBe("derun://session/live");
    if ((await client.readResource({ uri: "derun://session/live" })).contents.some((c) => (c as { text: string }).text.includes("got one")))
      break;
  }
  live.stdin.write("two\n");
  live.stdin.end();
  await live.exited;
  await updated.next(); // it ended
  await client.unsubscribeResource({ uri: "derun://session/live" });
  expect(fs.existsSync(path.join(state.path, "sessions", "live", "final.json"))).toBe(true);

  const prompts = await client.listPrompts();
  expect(prompts.prompts.map((p) => p.name)).toEqual(["why-did-it-fail", "summarize-session"]);
  const why = await client.getPrompt({ name: "why-did-it-fail" });
  const whyText = (why.messages[0]!.content as { text: string }).text;
  expect(whyText).toContain("session bad: exited 3");
  expect(whyText).toContain("error: cannot find module x");
  const summary = await client.getPrompt({ name: "summarize-session", arguments: { session_id: "ok" } });
  expect((summary.messages[0]!.content as { text: string }).text).toContain("hello there");
  await expect(client.getPrompt({ name: "nope" })).rejects.toThrow(/unknown prompt/);
});
