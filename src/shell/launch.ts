/**
 * How `derun shell` starts a shell so that it loads the marks even when the user's startup files do
 * not: bash reads an rc file of derun's (`--rcfile`) that reads ~/.bashrc (or the profile files of
 * a login shell) and then the snippet; zsh gets a ZDOTDIR of derun's whose startup files each read
 * the user's own and hand ZDOTDIR back (as VS Code does); fish gets `--init-command`, which runs
 * after config.fish. When the user's startup files already load the snippet, or the arguments do
 * not start an interactive shell that reads them, the shell is started exactly as asked.
 *
 * {@link planShellLaunch} is pure (files are read through the function it is given);
 * {@link prepareShellLaunch} writes the planned files into a private temporary directory that its
 * dispose removes, once the shell has exited.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isShellKind, shellInit, SNIPPET_SIGNS, type ShellKind } from "./init.ts";
import { readShellArgs } from "./shell-args.ts";
import { zshStartupFiles } from "./zdotdir.ts";
import { singleQuoted } from "../core/shell-quote.ts";

export interface ShellLaunchInput {
  /** The shell to start: a path or a name on PATH (`$SHELL`). */
  readonly shell: string;
  /** The user's arguments for it. */
  readonly args: readonly string[];
  /** The environment the shell is to get (with DERUN_SESSION_ID). */
  readonly env: Readonly<Record<string, string>>;
}

/** Who loads the snippet: derun's wrapper, the user's own startup files, or nobody (see `reason`). */
export type MarksLoader = "derun" | "startup-files" | "none";

export interface ShellLaunchPlan {
  readonly kind: ShellKind | undefined;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Files to write into the launch directory first: name to content. */
  readonly files: Readonly<Record<string, string>>;
  readonly marks: MarksLoader;
  /** Why the marks are not loaded by derun, when they are not. */
  readonly reason?: string;
}

export interface ShellLaunch extends ShellLaunchPlan, Disposable {
  /** The directory holding `files`, if any were needed. */
  readonly dir: string | undefined;
}

/** The shell a path names: `bash`, `/usr/bin/zsh`, `-zsh` (a login argv[0]), `zsh-5.9`, `bash5`. */
export function shellKindOf(shell: string): ShellKind | undefined {
  const name = path
    .basename(shell)
    .replace(/^-/, "")
    .replace(/-?[0-9][0-9.]*$/, "");
  return isShellKind(name) ? name : undefined;
}

/** `text` as one single-quoted word for bash, zsh and fish (fish reads `\'` inside single quotes). */
const quoteFor = (kind: ShellKind, text: string) =>
  kind === "fish" ? `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'` : singleQuoted(text);

/**
 * The argv, environment and files that start `input.shell` with the marks loaded. `dir` is where
 * `files` will be; `readText` reads a startup file (undefined when there is none).
 */
export function planShellLaunch(
  input: ShellLaunchInput & { readonly dir: string; readonly readText: (file: string) => string | undefined },
): ShellLaunchPlan {
  const kind = shellKindOf(input.shell);
  const unchanged = (marks: MarksLoader, reason?: string): ShellLaunchPlan => ({
    kind,
    argv: [input.shell, ...input.args],
    env: input.env,
    files: {},
    marks,
    ...(reason ? { reason } : {}),
  });
  if (kind === undefined)
    return unchanged("none", `no snippet for ${JSON.stringify(path.basename(input.shell))} (bash, zsh and fish have one)`);
  const args = readShellArgs(kind, input.args);
  if (!args.interactive) return unchanged("none", args.reason);
  const home = input.env.HOME ?? os.homedir();
  const startup = startupFilesOf(kind, args.login, args.rcfile, input.env, home);
  if (startup.some((file) => loadsSnippet(input.readText(file)))) return unchanged("startup-files");
  const snippet = path.join(input.dir, `init.${kind}`);
  const files: Record<string, string> = { [`init.${kind}`]: shellInit(kind) };
  if (kind === "fish") {
    return {
      kind,
      argv: [input.shell, ...args.rest, `--init-command=source ${quoteFor(kind, snippet)}`],
      env: input.env,
      files,
      marks: "derun",
    };
  }
  if (kind === "zsh") {
    Object.assign(files, zshStartupFiles(input.dir, snippet));
    const env: Record<string, string> = { ...input.env, ZDOTDIR: input.dir };
    if (input.env.ZDOTDIR !== undefined) env.DERUN_ZDOTDIR = input.env.ZDOTDIR;
    return { kind, argv: [input.shell, ...args.rest], env, files, marks: "derun" };
  }
  const source = (file: string) => `if [ -r ${file} ]; then . ${file}; fi`;
  const rc = args.login
    ? [
        ...(args.noProfile ? [] : [source("/etc/profile")]),
        ...(args.noProfile
          ? []
          : [
              `if [ -r ~/.bash_profile ]; then . ~/.bash_profile; elif [ -r ~/.bash_login ]; then . ~/.bash_login; elif [ -r ` +
                `~/.profile ]; then . ~/.profile; fi`,
            ]),
      ]
    : [source(args.rcfile === undefined ? "~/.bashrc" : quoteFor(kind, args.rcfile))];
  files.bashrc = [
    "# derun: the startup bash would read, then the marks (derun shell-init bash).",
    ...rc,
    `. ${quoteFor(kind, snippet)}`,
    "",
  ].join("\n");
  // bash reads long options only before single-letter ones.
  return { kind, argv: [input.shell, "--rcfile", path.join(input.dir, "bashrc"), ...args.rest], env: input.env, files, marks: "derun" };
}

/** The startup files where a user would put the set-up line (see README). */
function startupFilesOf(
  kind: ShellKind,
  login: boolean,
  rcfile: string | undefined,
  env: Readonly<Record<string, string>>,
  home: string,
): string[] {
  if (kind === "bash") {
    if (!login) return [rcfile ?? path.join(home, ".bashrc")];
    return [".bash_profile", ".bash_login", ".profile", ".bashrc"].map((name) => path.join(home, name));
  }
  if (kind === "zsh") {
    const dir = env.ZDOTDIR || home;
    return [".zshenv", ".zshrc", ...(login ? [".zprofile", ".zlogin"] : [])].map((name) => path.join(dir, name));
  }
  return [path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "fish", "config.fish")];
}

/** Whether startup file text loads the snippet on a line that is not a comment. */
function loadsSnippet(text: string | undefined): boolean {
  if (text === undefined || !SNIPPET_SIGNS.some((sign) => text.includes(sign))) return false;
  return text.split("\n").some((line) => !/^\s*#/.test(line) && SNIPPET_SIGNS.some((sign) => line.includes(sign)));
}

/** Startup files are read to look for the set-up line only: a bounded prefix is enough. */
const MAX_STARTUP_FILE_BYTES = 1 << 20;

function readStartupFile(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_STARTUP_FILE_BYTES);
    return buffer.toString("utf8", 0, fs.readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return undefined; // missing or unreadable: the shell will not read it either
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Plans the launch and writes its files into a new private directory (mode 0700, files 0600) under
 * `tmpdir`. Dispose once the shell has exited: the directory is removed.
 */
export function prepareShellLaunch(input: ShellLaunchInput & { readonly tmpdir?: string }): ShellLaunch {
  const dir = fs.mkdtempSync(path.join(input.tmpdir ?? os.tmpdir(), "derun-shell-"));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const plan = planShellLaunch({ ...input, dir, readText: readStartupFile });
    const names = Object.keys(plan.files);
    for (const name of names) fs.writeFileSync(path.join(dir, name), plan.files[name]!, { mode: 0o600, flag: "wx" });
    if (names.length === 0) remove();
    return { ...plan, dir: names.length === 0 ? undefined : dir, [Symbol.dispose]: names.length === 0 ? () => {} : remove };
  } catch (error) {
    remove();
    throw error;
  }
}
