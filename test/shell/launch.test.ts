/**
 * How each shell is started with the marks: the plan (argv, environment, files) for the arguments
 * a user may give, left alone when the startup files already load the snippet or the shell would
 * not be interactive; and the files prepareShellLaunch writes and removes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shellInit } from "../../src/shell/init.ts";
import { planShellLaunch, prepareShellLaunch, shellKindOf } from "../../src/shell/launch.ts";
import { readShellArgs } from "../../src/shell/shell-args.ts";
import { tempDir } from "../helpers/cli.ts";

const ENV = { HOME: "/home/ann", PATH: "/usr/bin", DERUN_SESSION_ID: "s1" };
const none = () => undefined;
const plan = (shell: string, args: string[] = [], env: Record<string, string> = ENV, readText: (f: string) => string | undefined = none) =>
  planShellLaunch({ shell, args, env, dir: "/tmp/derun-shell-x", readText });

describe("shellKindOf", () => {
  test("names the shell from a path, a login argv[0] or a versioned name", () => {
    expect(["/bin/bash", "-zsh", "/usr/local/bin/fish", "zsh-5.9", "bash5.2", "/bin/sh", "dash", "nu"].map(shellKindOf)).toEqual([
      "bash",
      "zsh",
      "fish",
      "zsh",
      "bash",
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("readShellArgs", () => {
  test("an interactive shell's arguments pass on; bash's login flag is taken out", () => {
    expect(readShellArgs("bash", ["-il", "-o", "vi", "--rcfile", "/x/rc"])).toEqual({
      interactive: true,
      login: true,
      rest: ["-i", "-o", "vi"],
      rcfile: "/x/rc",
    });
    expect(readShellArgs("zsh", ["-l", "-o", "vi"])).toEqual({ interactive: true, login: true, rest: ["-l", "-o", "vi"] });
    expect(readShellArgs("fish", ["--login", "-C", "set x 1", "--private"])).toEqual({
      interactive: true,
      login: true,
      rest: ["--login", "-C", "set x 1", "--private"],
    });
  });

  test("a command string, a script, or no startup files: left alone, with the reason", () => {
    for (const [kind, args] of [
      ["bash", ["-c", "ls"]],
      ["bash", ["script.sh"]],
      ["bash", ["--norc"]],
      ["bash", ["--posix"]],
      ["bash", ["-s"]],
      ["zsh", ["-c", "ls"]],
      ["zsh", ["-f"]],
      ["zsh", ["-o", "no_rcs"]],
      ["zsh", ["+o", "RCS"]],
      ["fish", ["-c", "ls"]],
      ["fish", ["--no-config"]],
      ["fish", ["script.fish"]],
      ["fish", ["-C"]],
    ] as const) {
      const read = readShellArgs(kind, args);
      expect({ kind, args, read }).toEqual({ kind, args, read: { interactive: false, reason: expect.any(String) } });
    }
  });

  test("a long argument is quoted short in the reason", () => {
    const read = readShellArgs("bash", ["x".repeat(5000)]);
    expect(read.interactive).toBe(false);
    if (!read.interactive) expect(read.reason.length).toBeLessThan(120);
  });
});

describe("planShellLaunch", () => {
  test("bash: --rcfile of derun's that reads ~/.bashrc, then the snippet", () => {
    const p = plan("/bin/bash", ["-o", "vi"]);
    expect(p).toMatchObject({
      kind: "bash",
      marks: "derun",
      argv: ["/bin/bash", "--rcfile", "/tmp/derun-shell-x/bashrc", "-o", "vi"],
      env: ENV,
    });
    expect(p.files["init.bash"]).toBe(shellInit("bash"));
    expect(p.files.bashrc).toContain("if [ -r ~/.bashrc ]; then . ~/.bashrc; fi\n. '/tmp/derun-shell-x/init.bash'");
  });

  test("bash login: the profile files bash would read, then the snippet (no --login: it would skip --rcfile)", () => {
    const p = plan("bash", ["-l"]);
    expect(p.argv).toEqual(["bash", "--rcfile", "/tmp/derun-shell-x/bashrc"]);
    expect(p.files.bashrc).toContain(". /etc/profile");
    expect(p.files.bashrc).toContain("elif [ -r ~/.profile ]");
    expect(plan("bash", ["--login", "--noprofile"]).files.bashrc).not.toContain("profile");
    expect(plan("bash", ["--rcfile", "/it's/rc"]).files.bashrc).toContain(`. '/it'\\''s/rc'`);
  });

  test("zsh: a ZDOTDIR of derun's, and the user's ZDOTDIR handed over in DERUN_ZDOTDIR", () => {
    const p = plan("zsh");
    expect(p).toMatchObject({ marks: "derun", argv: ["zsh"], env: { ...ENV, ZDOTDIR: "/tmp/derun-shell-x" } });
    expect(p.env.DERUN_ZDOTDIR).toBeUndefined();
    expect(Object.keys(p.files).sort()).toEqual([".zlogin", ".zprofile", ".zshenv", ".zshrc", "init.zsh"]);
    expect(plan("zsh", [], { ...ENV, ZDOTDIR: "/home/ann/.config/zsh" }).env).toMatchObject({
      ZDOTDIR: "/tmp/derun-shell-x",
      DERUN_ZDOTDIR: "/home/ann/.config/zsh",
    });
  });

  test("fish: --init-command sources the snippet after config.fish", () => {
    expect(plan("/usr/bin/fish", ["-l"]).argv).toEqual(["/usr/bin/fish", "-l", "--init-command=source '/tmp/derun-shell-x/init.fish'"]);
  });

  test("startup files that already load the snippet: the shell starts exactly as asked", () => {
    const rc = (files: Record<string, string>) => (file: string) => files[file];
    const line = '[ -n "$DERUN_SESSION_ID" ] && eval "$(derun shell-init bash)"\n';
    expect(plan("bash", ["-i"], ENV, rc({ "/home/ann/.bashrc": line }))).toMatchObject({
      marks: "startup-files",
      argv: ["bash", "-i"],
      env: ENV,
      files: {},
    });
    expect(plan("bash", [], ENV, rc({ "/home/ann/.bashrc": `# ${line}` })).marks).toBe("derun"); // commented out
    expect(plan("zsh", [], { ...ENV, ZDOTDIR: "/z" }, rc({ "/z/.zshrc": 'eval "$(derun shell-init zsh)"' })).marks).toBe("startup-files");
    expect(plan("fish", [], { ...ENV, XDG_CONFIG_HOME: "/c" }, rc({ "/c/fish/config.fish": "derun shell-init fish | source" })).marks).toBe(
      "startup-files",
    );
  });

  test("another shell, or arguments that start no interactive shell: unchanged, and why", () => {
    expect(plan("/bin/dash")).toMatchObject({ marks: "none", argv: ["/bin/dash"], files: {}, reason: expect.stringContaining("dash") });
    expect(plan("bash", ["-c", "make"])).toMatchObject({
      marks: "none",
      argv: ["bash", "-c", "make"],
      reason: expect.stringContaining("-c"),
    });
  });
});

describe("prepareShellLaunch", () => {
  test("writes the files into a private directory that dispose removes", () => {
    using tmp = tempDir();
    let dir: string | undefined;
    {
      using launch = prepareShellLaunch({ shell: "zsh", args: [], env: { ...ENV, HOME: tmp.path }, tmpdir: tmp.path });
      dir = launch.dir!;
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, ".zshrc")).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, "init.zsh"), "utf8")).toBe(shellInit("zsh"));
    }
    expect(existsSync(dir)).toBe(false);
  });

  test("reads the user's real startup file, and writes nothing when it loads the snippet", () => {
    using tmp = tempDir();
    writeFileSync(join(tmp.path, ".bashrc"), 'eval "$(derun shell-init bash)"\n');
    using launch = prepareShellLaunch({ shell: "bash", args: [], env: { ...ENV, HOME: tmp.path }, tmpdir: tmp.path });
    expect(launch).toMatchObject({ marks: "startup-files", dir: undefined, argv: ["bash"] });
  });
});
