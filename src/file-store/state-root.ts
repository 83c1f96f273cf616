/** Where derun keeps its state (docs/format.md, "State root"). */
import * as os from "node:os";
import * as path from "node:path";

/**
 * The absolute state root: `DERUN_STATE_ROOT`, else `$XDG_STATE_HOME/derun`, else
 * `~/.local/state/derun`; on Windows `%LOCALAPPDATA%/derun/state`. Empty variables count as unset.
 */
export function resolveStateRoot(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const pathApi = platform === "win32" ? path.win32 : path.posix;
  const explicit = env.DERUN_STATE_ROOT;
  if (explicit) return pathApi.resolve(explicit);
  if (platform === "win32") {
    const local = env.LOCALAPPDATA || pathApi.join(env.USERPROFILE || os.homedir(), "AppData", "Local");
    return pathApi.resolve(local, "derun", "state");
  }
  if (env.XDG_STATE_HOME) return pathApi.resolve(env.XDG_STATE_HOME, "derun");
  return pathApi.resolve(env.HOME || os.homedir(), ".local", "state", "derun");
}
