/**
 * Whether derun's stdout and stderr are one stream (`2>&1`, `&>log`, or both the same terminal), so
 * the command gets one stream for both and its writes keep their order, as without derun.
 *
 * Same device and inode first. For a pipe, a socket, a FIFO or a terminal that is already one
 * stream: writes through either fd land in the one queue in the order made. A regular file is one
 * stream only when both fds share one open file description (one offset): `>log 2>&1` does, `>log
 * 2>log` (two opens, two offsets) does not. Linux says so through kcmp(2); where kcmp is refused
 * (seccomp) the offsets and flags in /proc/self/fdinfo stand in; elsewhere the same file counts.
 * A device that is not a terminal (`>/dev/null 2>/dev/null`, or `2>&1` there) is never one stream:
 * nobody can see an order there, and merging would only cost the recording which bytes were errors.
 */
import { fstatSync, readFileSync, type Stats } from "node:fs";
import { libcKcmp } from "../os/libc.ts";
import { isTerminal } from "./terminal.ts";

const KCMP_FILE = 0;
/** kcmp's syscall number on Linux. */
const SYS_KCMP: Partial<Record<NodeJS.Architecture, number>> = { x64: 312, arm64: 272 };

/** Whether `a` and `b` (fds of this process) write into one stream. */
export function sameOpenFile(a: number, b: number): boolean {
  if (process.platform === "win32") return false;
  const [statA, statB] = [statOf(a), statOf(b)];
  if (!statA || !statB || statA.dev !== statB.dev || statA.ino !== statB.ino) return false;
  if (statA.isCharacterDevice() || statA.isBlockDevice()) return isTerminal(a);
  if (!statA.isFile()) return true;
  if (process.platform !== "linux") return true;
  return sharedDescription(a, b) ?? sameFdInfo(a, b);
}

function statOf(fd: number): Stats | undefined {
  try {
    return fstatSync(fd);
  } catch {
    return undefined;
  }
}

/** kcmp's answer (0: the same description), or undefined when the kernel would not say. */
function sharedDescription(a: number, b: number): boolean | undefined {
  const nr = SYS_KCMP[process.arch];
  if (nr === undefined) return undefined;
  try {
    const result = Number(libcKcmp().syscall(nr, process.pid, process.pid, KCMP_FILE, a, b));
    return result < 0 ? undefined : result === 0;
  } catch {
    return undefined;
  }
}

/**
 * Without kcmp: the same offset and flags. Two opens of one file that agree on both (`>log 2>log`,
 * both still at 0) are taken for one stream: that command's output clobbers itself either way.
 */
function sameFdInfo(a: number, b: number): boolean {
  const info = (fd: number) => {
    try {
      return readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
        .split("\n")
        .filter((line) => /^(pos|flags):/.test(line))
        .join("\n");
    } catch {
      return undefined;
    }
  };
  const infoA = info(a);
  return infoA !== undefined && infoA === info(b);
}
