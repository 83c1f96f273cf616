/** Directories 0700 and files 0600 whatever the umask, checked exactly on real files. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { expectLine, makeRoot, removeRoot, spawnFixture } from "../helpers/store.ts";

let base: string;
beforeEach(() => (base = makeRoot()));
afterEach(() => removeRoot(base));

const mode = (p: string) => (fs.lstatSync(p).mode & 0o7777).toString(8);

for (const umask of ["000", "022", "777"]) {
  test.skipIf(process.platform === "win32")(`umask ${umask}: dirs are 0700 and files 0600`, async () => {
    const root = path.join(base, "nested", "state"); // created by the store itself
    const fixture = spawnFixture("umask-session.ts", [umask, root]);
    await expectLine(fixture, "done");
    expect(await fixture.proc.exited).toBe(0);
    const session = path.join(root, "sessions", "modes");
    const modes = Object.fromEntries(
      [
        path.join(base, "nested"),
        root,
        path.join(root, "sessions"),
        session,
        path.join(root, "logs"),
        ...["meta.json", "final.json", "output.bin", "index.jsonl", "append.lock"].map((f) => path.join(session, f)),
        path.join(root, "logs", "derun.jsonl"),
      ].map((p) => [path.relative(base, p), mode(p)]),
    );
    expect(modes).toEqual({
      nested: "700",
      "nested/state": "700",
      "nested/state/sessions": "700",
      "nested/state/sessions/modes": "700",
      "nested/state/logs": "700",
      "nested/state/sessions/modes/meta.json": "600",
      "nested/state/sessions/modes/final.json": "600",
      "nested/state/sessions/modes/output.bin": "600",
      "nested/state/sessions/modes/index.jsonl": "600",
      "nested/state/sessions/modes/append.lock": "600",
      "nested/state/logs/derun.jsonl": "600",
    });
    // No temp files left.
    expect(fs.readdirSync(session).sort()).toEqual(["append.lock", "final.json", "index.jsonl", "meta.json", "output.bin"]);
  });
}
