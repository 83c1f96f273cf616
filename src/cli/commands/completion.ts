/** `derun completion bash|zsh|fish`: the completion script for that shell, on stdout. */
import { exitWith, type CommandData, type ExitRequest } from "../command.ts";
import { parseFlags, type FlagDefs } from "../flags.ts";
import { shown, usageError } from "../usage.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;

export const args = {
  shell: { type: "positional", description: `One of ${SHELLS.join(", ")}.`, complete: SHELLS },
} as const satisfies FlagDefs;

export const examples = [
  "source <(derun completion bash)            # in ~/.bashrc",
  "source <(derun completion zsh)             # in ~/.zshrc, after compinit",
  "derun completion fish > ~/.config/fish/completions/derun.fish",
];

export async function run(flags: readonly string[], { commands = {} }: CommandData): Promise<ExitRequest> {
  const { positionals } = parseFlags(flags, args);
  const [shell, extra] = positionals;
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell) || extra !== undefined) {
    throw usageError(
      `derun completion takes one of ${SHELLS.join(", ")} (got ${shell === undefined ? "nothing" : shown(positionals.join(" "))})`,
    );
  }
  const spec = await (await import("../completion/spec.ts")).completionSpec(commands);
  const scripts = {
    bash: () => import("../completion/bash.ts").then((m) => m.bashScript(spec)),
    zsh: () => import("../completion/zsh.ts").then((m) => m.zshScript(spec)),
    fish: () => import("../completion/fish.ts").then((m) => m.fishScript(spec)),
  };
  process.stdout.write(await scripts[shell as (typeof SHELLS)[number]]());
  return exitWith(0);
}
