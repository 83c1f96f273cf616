/**
 * A new session is never refused because a reader checked a moment earlier whether a directory
 * without meta.json is live: the sweep does exactly that to a directory that derun has just made,
 * and holds its lock for an instant. Only a directory another derun made is refused at once.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { openFileStore } from "../../src/file-store/index.ts";
import { makeRoot, removeRoot, spawnFixture, expectLine } from "../helpers/store.ts";

let root: string;
beforeEach(() => (root = makeRoot()));
afterEach(() => removeRoot(root));

const SESSIONS = 400;

test("sessions created while another process probes their liveness are all created", async () => {
  const store = openFileStore({ root });
  await (
    await store.create({ command: ["true"], workingDirectory: root, retentionSeconds: 60, transportMode: "pipe", ttyAttached: false })
  )[Symbol.asyncDispose]();
  const prober = spawnFixture("liveness-prober.ts", [root]);
  await expectLine(prober, "probing");
  const refused: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    try {
      const writer = await store.create({
        command: ["true"],
        workingDirectory: root,
        retentionSeconds: 60,
        transportMode: "pipe",
        ttyAttached: false,
      });
      await writer[Symbol.asyncDispose]();
    } catch (error) {
      refused.push(String(error));
    }
  }
  prober.send("stop");
  const probes = Number(await prober.nextLine());
  await prober.proc.exited;
  expect(refused).toEqual([]);
  // The race was there to lose: the prober looked at directories still without meta.json.
  expect(probes).toBeGreaterThan(0);
}, 60_000);
