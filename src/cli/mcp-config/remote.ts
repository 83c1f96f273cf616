/**
 * `derun mcp config <client> --ssh [user@]host` and `--container <name>`: the client starts `derun
 * mcp` on that machine over the stdio it already speaks, `ssh -T host derun mcp` or `docker exec -i
 * box derun mcp`. That derun reads its own machine's state root (its DERUN_STATE_ROOT, else its
 * user's default), or the one `--state-root` names there. The local program is named by absolute
 * path, as for a local derun: GUI clients start servers without a shell or PATH.
 */
import path from "node:path";
import { DerunError } from "../../core/errors.ts";
import { shellWord } from "../../core/shell-quote.ts";
import type { McpLaunch } from "./types.ts";

export type RemoteTarget =
  | { readonly kind: "ssh"; readonly destination: string }
  | { readonly kind: "container"; readonly name: string; readonly engine: "docker" | "podman" };

export interface RemoteOptions {
  /** The derun command on the other machine: `derun` (its PATH), or a path (`~/` is the remote home). */
  readonly derun: string;
  /** The state root there, when not its default. */
  readonly stateRoot?: string;
  /** `derun mcp --scope` there: only the sessions of that directory (of the other machine). */
  readonly scope?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
}

/** A word for the remote POSIX shell; a leading `~/` stays unquoted so that it expands there. */
const remoteWord = (word: string): string =>
  word.startsWith("~/") ? `~/${word.length > 2 ? shellWord(word.slice(2), "linux") : ""}` : shellWord(word, "linux");

/** The local program's absolute path, found on PATH as a shell would. */
function localProgram(name: string, env: RemoteOptions["env"]): string {
  const found = Bun.which(name, { PATH: env.PATH ?? "" });
  if (!found || !path.isAbsolute(found)) throw new Error(`${name} is not on PATH: install it, or run derun mcp config where it is`);
  return found;
}

export function remoteLaunch(target: RemoteTarget, options: RemoteOptions): McpLaunch {
  const derunArgs = [
    "mcp",
    ...(options.stateRoot === undefined ? [] : ["--state-root", options.stateRoot]),
    ...(options.scope === undefined ? [] : ["--scope", options.scope]),
  ];
  if (target.kind === "ssh") {
    // -T: no terminal, the bytes are JSON-RPC; BatchMode: fail at once rather than ask for a
    // password that nobody can type (the client has no terminal). `ssh` sends the command as one
    // string to the remote user's shell, hence the quoting.
    const remote = [options.derun, ...derunArgs].map(remoteWord).join(" ");
    return {
      command: localProgram("ssh", options.env),
      args: ["-T", "-o", "BatchMode=yes", target.destination, remote],
      platform: options.platform,
    };
  }
  // exec runs the program itself, no shell: the words go as they are.
  return {
    command: localProgram(target.engine, options.env),
    args: ["exec", "-i", target.name, options.derun, ...derunArgs],
    platform: options.platform,
  };
}

/** Where the configuration's derun runs, for the line on stderr. */
export function remoteWhere(target: RemoteTarget, options: RemoteOptions): string {
  const root =
    options.stateRoot === undefined
      ? "its own state root (DERUN_STATE_ROOT there, else ~/.local/state/derun of the user)"
      : `the state root ${options.stateRoot}`;
  if (target.kind === "ssh") {
    return (
      `derun mcp runs on ${target.destination} over ssh (key or agent login: there is no terminal for a password), reading ` +
      `${root}; ${options.derun} must start there in a non-interactive ssh session (install the binary in /usr/local/bin, or give ` +
      `--derun <path>)`
    );
  }
  return (
    `derun mcp runs in the ${target.engine} container ${target.name} (it must be running), reading ${root}; ${options.derun} ` +
    `must be on the container's PATH (or give --derun <path>)`
  );
}

/** `--ssh` / `--container` / `--engine` as given; undefined when neither names another machine. */
export function remoteTarget(
  values: { ssh?: string; container?: string; engine?: "docker" | "podman" },
  env: RemoteOptions["env"],
): RemoteTarget | undefined {
  if (values.ssh !== undefined && values.container !== undefined)
    throw new DerunError("usage", "--ssh and --container name two machines: give one");
  if (values.engine !== undefined && values.container === undefined) throw new DerunError("usage", "--engine goes with --container");
  for (const [flag, value] of [
    ["--ssh", values.ssh],
    ["--container", values.container],
  ] as const) {
    if (value !== undefined && (value === "" || value.startsWith("-") || /\s/.test(value))) {
      throw new DerunError(
        "usage",
        `${flag} needs a ${flag === "--ssh" ? "host ([user@]host)" : "container name"} (got ${JSON.stringify(value.slice(0, 100))})`,
      );
    }
  }
  if (values.ssh !== undefined) return { kind: "ssh", destination: values.ssh };
  if (values.container === undefined) return undefined;
  const engine =
    values.engine ??
    (Bun.which("docker", { PATH: env.PATH ?? "" }) ? "docker" : Bun.which("podman", { PATH: env.PATH ?? "" }) ? "podman" : "docker");
  return { kind: "container", name: values.container, engine };
}
