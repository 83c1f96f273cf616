/**
 * `derun export --format html` opened in a real browser (Debian's headless Chromium): a failed
 * TypeScript build recorded on a PTY and a `derun shell` session typed into bash give pages whose
 * player shows the session's last screen as derun's own screen view renders it, whose chapters list
 * the commands with their statuses (a click seeks the player to one), with the secrets masked and
 * counted, and which ask the network for nothing (Chromium's net log, checked against a page that
 * does). Screenshots are kept under .tmp/export-html/ (gitignored).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, playerScreen, render, screenRow, screenShows, unescapeHtml } from "../helpers/chromium.ts";
import pkg from "../../package.json" with { type: "json" };
import { REPO_ROOT, runDerun, tempDir, text } from "../helpers/cli.ts";
import { shellHome, startShell } from "../helpers/shells.ts";
import { recordPipe, recordPty } from "../helpers/cli-recordings.ts";

const state = tempDir("derun-cli-export-html-");
const root = state.path;
const ARTIFACTS = join(REPO_ROOT, ".tmp/export-html");
const TSC = join(REPO_ROOT, "node_modules/.bin/tsc");
const bash = Bun.which("bash");
/** A GitHub token's shape: derun's masking knows it. */
const TOKEN = "ghp_R4nd0mT0k3nV4lu3F0rD3runT3st5xYz0123";

async function exportPage(id: string, extra: readonly string[] = []): Promise<{ file: string; html: string; stderr: string }> {
  const file = join(root, `${id}.html`);
  const done = await runDerun(["export", id, "--format", "html", "-o", file, ...extra], { stateRoot: root });
  expect(text(done.stderr)).toContain(`wrote ${id} to`);
  expect(done.exitCode).toBe(0);
  return { file, html: readFileSync(file, "utf8"), stderr: text(done.stderr) };
}

/** derun's own render of the session's last screen (xterm headless), rows trimmed. */
async function screenView(id: string): Promise<string[]> {
  const done = await runDerun(["cat", id, "--view", "screen"], { stateRoot: root });
  expect(done.exitCode).toBe(0);
  return text(done.stdout).trimEnd().split("\n");
}

/** The chapters as the page lists them: command line and status text. */
function chapters(dom: string): { line: string; status: string; failed: boolean }[] {
  const list = dom.match(/<ol id="chapters">([\s\S]*?)<\/ol>/)?.[1] ?? "";
  return [...list.matchAll(/<li class="(\w+)[^"]*">[\s\S]*?<code>([\s\S]*?)<\/code><span class="status[^"]*">([\s\S]*?)<\/span>/g)].map(
    (m) => ({ failed: m[1] === "failed", line: unescapeHtml(m[2]!), status: unescapeHtml(m[3]!) }),
  );
}

const nonEmpty = (rows: readonly string[]) => rows.filter((row) => row.trim() !== "");

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // A real build that fails: tsc on a file whose error line holds a token (its code frame prints it).
  const project = join(root, "project");
  mkdirSync(project);
  writeFileSync(join(project, "main.ts"), `const port: number = "8080";\nconst token: number = "${TOKEN}";\nexport { port, token };\n`);
  const build = await recordPty(
    root,
    "build",
    ["sh", "-c", `cd '${project}' && echo 'building main.ts' && exec '${TSC}' --noEmit --pretty main.ts`],
    {
      cols: 100,
      rows: 24,
    },
  );
  expect(build.exitCode).toBe(1);
});

afterAll(() => (process.env.KEEP_STATE ? console.log("state", root) : state[Symbol.dispose]()));

describe.skipIf(!chromium)("derun export --format html in headless Chromium", () => {
  test("the browser's net log sees a page's request (the check below can fail)", async () => {
    using dir = tempDir("derun-html-control-");
    const page = join(dir.path, "control.html");
    writeFileSync(page, '<!doctype html><img src="http://derun-probe.invalid/x.png">');
    const shown = await render(pathToFileURL(page).href, 'document.querySelector("img").complete');
    expect(shown.requests).toEqual(["http://derun-probe.invalid/x.png"]);
  });

  test("a failed build: its last screen, one chapter with its status, the token masked, no request", async () => {
    const { file, html, stderr } = await exportPage("build");
    expect(html).not.toContain(TOKEN);
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).toContain("Content-Security-Policy");
    // The player's version is pinned, named in the page, and its licence travels with it.
    expect(pkg.devDependencies["asciinema-player"]).toBe("3.18.0");
    expect(html).toContain("asciinema-player 3.18.0 (Apache-2.0)");
    expect(html).toContain("Apache License");
    expect(stderr).toMatch(/html, \d+ KiB: recording .* gzipped to .*, [1-9]\d* secrets masked/);

    const page = await render(pathToFileURL(file).href, screenShows("Found 2 errors"), { png: join(ARTIFACTS, "build.png") });
    expect(page.requests).toEqual([]);
    const screen = playerScreen(page.dom);
    expect(screen).toHaveLength(24);
    const shown = nonEmpty(screen).join("\n");
    expect(shown).toContain("building main.ts");
    expect(shown).toContain("error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(shown).toContain("Found 2 errors in the same file");
    expect(shown).not.toContain(TOKEN);
    expect(shown).toContain("*".repeat(TOKEN.length));
    // The player's last screen is the one derun's screen view renders (the page's is after the shell prompt-less exit).
    expect(nonEmpty(screen)).toEqual(nonEmpty(await screenView("build")));

    const title = unescapeHtml(page.dom.match(/<title>([\s\S]*?)<\/title>/)![1]!);
    expect(title).toMatch(/^sh -c .*main\.ts' · exit 1 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · \d/);
    expect(chapters(page.dom)).toEqual([
      {
        line: expect.stringContaining("tsc") as unknown as string,
        status: expect.stringMatching(/^✗ exit 1 · \d/) as unknown as string,
        failed: true,
      },
    ]);
    expect(page.dom).toMatch(/id="masked">[1-9]\d* secrets? masked/);
    expect(statSync(join(ARTIFACTS, "build.png")).size).toBeGreaterThan(10_000);
  });

  test("a pipe session (stdin not a terminal, as agents run commands): its lines start at the left, as a terminal shows them", async () => {
    await recordPipe(root, "piped", "printf 'compiling\\n'; printf 'error: it broke\\n' >&2; exit 4", 4);
    const { file } = await exportPage("piped");
    const page = await render(pathToFileURL(file).href, screenShows("it broke"));
    expect(nonEmpty(playerScreen(page.dom))).toEqual(["compiling", "error: it broke"]);
    expect(chapters(page.dom)).toEqual([
      {
        line: "sh -c 'printf '\\''compiling\\n'\\''; printf '\\''error: it broke\\n'\\'' >&2; exit 4'",
        status: expect.stringMatching(/^✗ exit 4/) as unknown as string,
        failed: true,
      },
    ]);
  });

  test.skipIf(!bash)("a derun shell session: a chapter per command with its status; a link to one seeks there", async () => {
    using home = shellHome("bash");
    {
      await using shell = startShell("bash", home, { withMarks: true, viaDerun: { stateRoot: root, sessionId: "sh" } });
      await shell.prompts(1);
      shell.type("echo first-command-output\r");
      await shell.prompts(2);
      shell.type(`echo ${TOKEN}\r`);
      await shell.prompts(3);
      // A build that takes a moment: its output comes well after its start, where the chapter seeks.
      shell.type("sh -c 'sleep 0.5; echo the build broke >&2; exit 3'\r");
      await shell.prompts(4);
      shell.type("echo last-words\r");
      await shell.prompts(5);
      await shell.exit();
    }
    const { file, html } = await exportPage("sh");
    expect(html).not.toContain(TOKEN);
    const page = await render(pathToFileURL(file).href, screenShows("derun-test> exit"), { png: join(ARTIFACTS, "shell.png") });
    expect(page.requests).toEqual([]);
    const masked = "*".repeat(TOKEN.length);
    expect(chapters(page.dom).map(({ line, failed }) => ({ line, failed }))).toEqual([
      { line: "echo first-command-output", failed: false },
      { line: `echo ${masked}`, failed: false },
      { line: "sh -c 'sleep 0.5; echo the build broke >&2; exit 3'", failed: true },
      { line: "echo last-words", failed: false },
      { line: "exit", failed: false },
    ]);
    expect(chapters(page.dom).map(({ status }) => status.split(" · ")[0])).toEqual([
      "✓ exit 0",
      "✓ exit 0",
      "✗ exit 3",
      "✓ exit 0",
      // The shell ended with it: no end mark, so no status of its own (the session's is in the title).
      "✓ no status",
    ]);
    // Each token seen is counted: the command line and its output (the line's echo on the screen, the output line).
    expect(page.dom).toMatch(/id="masked">[2-9] secrets masked/);
    const last = nonEmpty(playerScreen(page.dom)).join("\n");
    expect(last).toContain("last-words");
    expect(last).toContain("the build broke");
    expect(nonEmpty(playerScreen(page.dom))).toEqual(nonEmpty(await screenView("sh")));

    // The third command's link: the player seeks to its start, before what it printed.
    // (The last screen shows first, then the seek: wait for a screen without the end on it.)
    const third = await render(
      `${pathToFileURL(file).href}#command-3`,
      `${screenShows("first-command-output")} && !${screenShows("> exit")}`,
    );
    const atThird = nonEmpty(playerScreen(third.dom));
    expect(atThird).toContain("first-command-output");
    expect(atThird.at(-1)).toBe("derun-test> sh -c 'sleep 0.5; echo the build broke >&2; exit 3'");
    expect(atThird).not.toContain("the build broke");
    expect(third.dom).toMatch(/<li class="failed current">/);
    expect(statSync(join(ARTIFACTS, "shell.png")).size).toBeGreaterThan(10_000);

    // One command as a page of its own: from its prompt to its end, headed by its line and status.
    const part = await exportPage("sh", ["--command", "3"]);
    const one = await render(pathToFileURL(part.file).href, screenRow("the build broke"));
    expect(one.requests).toEqual([]);
    expect(nonEmpty(playerScreen(one.dom))).toEqual(["derun-test> sh -c 'sleep 0.5; echo the build broke >&2; exit 3'", "the build broke"]);
    expect(chapters(one.dom).map(({ line, status }) => [line, status.split(" · ")[0]])).toEqual([
      ["sh -c 'sleep 0.5; echo the build broke >&2; exit 3'", "✗ exit 3"],
    ]);
    expect(unescapeHtml(one.dom.match(/<title>([\s\S]*?)<\/title>/)![1]!)).toStartWith(
      "sh -c 'sleep 0.5; echo the build broke >&2; exit 3' · exit 3 · ",
    );
  });
});

describe("derun export: the times of masked output", () => {
  test("output in a read that held a secret keeps its own time (a masked slice kept the store's timestamp)", async () => {
    await recordPipe(root, "timed", `echo ${TOKEN}; sleep 0.4; echo later`);
    const done = await runDerun(["export", "timed"], { stateRoot: root });
    const events = text(done.stdout)
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as [number, string, string]);
    const later = events.find(([, , data]) => data.includes("later"))!;
    expect(events[0]![2]).toBe(`${"*".repeat(TOKEN.length)}\n`);
    // Printed after a 0.4 s sleep: before the fix it carried the time of the event before it.
    expect(later[0]).toBeGreaterThanOrEqual(0.4);
  });
});

describe("derun export --format html: what it refuses", () => {
  test("more output than a page holds: one line saying what to export instead, exit 2, no file", async () => {
    await recordPipe(root, "big", "head -c 53000000 /dev/zero");
    const file = join(root, "big.html");
    const done = await runDerun(["export", "big", "--format", "html", "-o", file], { stateRoot: root });
    expect(done.exitCode).toBe(2);
    // The refusal's line, then the hint every usage error ends with.
    const [said, hint, ...more] = text(done.stderr).trimEnd().split("\n");
    expect([hint, ...more]).toEqual(['Run "derun export --help" for usage.']);
    expect(said).toContain("session big has 51 MiB of output, over the 50 MiB an HTML page holds");
    expect(said).toContain("--format asciicast-v3");
    expect(existsSync(file)).toBe(false);
  });

  test("--command with an asciicast format: a usage error", async () => {
    const done = await runDerun(["export", "build", "--command", "1"], { stateRoot: root });
    expect(done.exitCode).toBe(2);
    expect(text(done.stderr)).toContain('option "--command" applies to --format html');
  });
});
