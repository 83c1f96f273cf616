/**
 * The person's redaction settings ($XDG_CONFIG_HOME/derun/redact.json): an extra rule masks what the
 * built-in ones would not, an allow-listed value is shown, a built-in rule can be turned off; a file
 * that cannot be used stops `derun cat` and `derun mcp` with a one-line error (exit 2, as bad flags), rather than
 * running with less masking than asked for.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDerun, tempDir, text } from "../helpers/cli.ts";
import { SECRETS } from "../helpers/secrets.ts";

const state = tempDir("derun-redact-config-");
const config = tempDir("derun-redact-config-home-");
const ACME = "acme_Zk3QwErTy7uIoP9";
const OTHER = "acme_Aa1Bb2Cc3Dd4Ee5";

const withConfig = (content: unknown) => {
  mkdirSync(join(config.path, "derun"), { recursive: true });
  writeFileSync(join(config.path, "derun", "redact.json"), typeof content === "string" ? content : JSON.stringify(content));
};
const derun = (...args: string[]) => runDerun(args, { stateRoot: state.path, env: { XDG_CONFIG_HOME: config.path } });

beforeAll(async () => {
  const done = await runDerun(
    [
      "run",
      "--session-id",
      "s",
      "--",
      "sh",
      "-c",
      `echo 'id ${ACME} and ${OTHER}'; echo 'gh ${SECRETS.github}'; echo 'jwt ${SECRETS.jwt}'`,
    ],
    { stateRoot: state.path },
  );
  expect(done.exitCode).toBe(0);
});

afterAll(() => {
  state[Symbol.dispose]();
  config[Symbol.dispose]();
});

describe("redact.json", () => {
  test("extra rules, an allow-list and a built-in rule turned off", async () => {
    withConfig({ rules: [{ id: "acme", pattern: "acme_[A-Za-z0-9]{12,}", keywords: ["ACME_"] }], allow: [`^${OTHER}$`], disable: ["jwt"] });
    const out = text((await derun("cat", "s")).stdout).split("\n");
    expect(out[0]).toBe(`id ${"*".repeat(ACME.length)} and ${OTHER}`);
    expect(out[1]).toBe(`gh ${"*".repeat(SECRETS.github.length)}`);
    expect(out[2]).toBe(`jwt ${SECRETS.jwt}`);
  });

  test("derun why masks with them too: the failure's lines and its command line", async () => {
    withConfig({ rules: [{ id: "acme", pattern: "acme_[A-Za-z0-9]{12,}", keywords: ["ACME_"] }] });
    const failed = await runDerun(["run", "--session-id", "f", "--", "sh", "-c", `echo 'ERROR: login refused for ${ACME}'; exit 3`], {
      stateRoot: state.path,
    });
    expect(failed.exitCode).toBe(3);
    const why = await derun("why", "f");
    expect(why.exitCode).toBe(0);
    const shown = text(why.stdout);
    expect(shown).toContain(`ERROR: login refused for ${"*".repeat(ACME.length)}`);
    expect(shown).not.toContain(ACME.slice(5));
  });

  test("a file that cannot be used: a one-line error naming it, exit 2, nothing printed", async () => {
    const file = join(config.path, "derun", "redact.json");
    for (const [content, why] of [
      ["{", "not JSON"],
      [{ rules: [{ id: "x", pattern: "(" }] }, 'rule "x" is not a regular expression'],
      [{ allow: "x" }, "allow must be an array"],
    ] as const) {
      withConfig(content);
      for (const args of [["cat", "s"], ["mcp"], ["why", "s"], ["wait", "s"]]) {
        const done = await derun(...args);
        // The error's one line, then the hint every usage error ends with.
        const lines = text(done.stderr).trim().split("\n");
        expect({ args, code: done.exitCode, stdout: text(done.stdout), line: lines[0] }).toEqual({
          args,
          code: 2,
          stdout: "",
          line: expect.stringContaining(`derun: ${file}: ${why}`),
        });
      }
    }
    // --no-redact reads no settings: the person asked for none.
    expect((await derun("cat", "s", "--no-redact")).exitCode).toBe(0);
  });
});
