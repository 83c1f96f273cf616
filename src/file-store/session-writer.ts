/**
 * The single writer of one session (docs/format.md, "Files of a session"). It holds
 * `append.lock` for its whole life, keeps output.bin and index.jsonl open, and appends with plain
 * synchronous writes: bytes first, then the index line, so the index never describes bytes that
 * are not there. A write that fails (a full disk) is cut back off both files, and room kept since
 * creation (final-reserve.ts) lets final.json still say how the session ended.
 *
 * No fsync: `write()` already puts the bytes where every reader and a crash of derun can see them,
 * and an fsync at the end would sit on the user's exit path, growing with the output. What only
 * power loss could cost is not worth that to everyone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type {
  CommandRecord,
  CreateSessionOptions,
  PauseState,
  RecordGap,
  SessionEvent,
  SessionFinal,
  SessionMeta,
  SessionWriter,
  StartedUpdate,
} from "../core/store.ts";
import type { WindowSize } from "../core/transport.ts";
import { SCHEMA_VERSION, type DerunOutputChannel } from "../core/enums.ts";
import { DerunError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { resolveArtifact, resolveSessionDir, type ArtifactName } from "./session-paths.ts";
import { generateSessionId, validateSessionId } from "../core/store/session-id.ts";
import { checkOwnDir, ensureStateDir, openLock, openRegular, writeAllSync, writeFileAtomic, type FileLock } from "../safe-fs/index.ts";
import { releaseRoom, reserveRoom } from "./final-reserve.ts";
import { JsonlAppender } from "./jsonl-appender.ts";
import { readPauseRequest, writePauseRequest, writePauseState } from "./pause-files.ts";
import { bytesOf, type StoragePolicy } from "../core/store/disk.ts";
import { filesystemOf } from "./disk-usage.ts";
import { OutputTrim } from "./trim.ts";

const { O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND } = fs.constants;

/**
 * Create session directory and files, then return its writer. Order: validate, refuse an existing
 * session (nothing written), mkdir, lock `append.lock`, write meta.json. Only the run whose mkdir
 * made the directory records into it: a directory that was there already is another run's (one
 * racing for the same id, or one that died before its meta.json) and is refused at once, never
 * waited for and never cleaned up by this run. The lock on the directory this run made can be held
 * only by a reader asking for a moment whether the session is live (the retention sweep does, on a
 * directory without meta.json): that is waited out.
 */
export async function createSessionWriter(
  root: string,
  options: CreateSessionOptions,
  log: Logger,
  storage?: StoragePolicy,
): Promise<SessionWriter> {
  const id = options.sessionId === undefined ? generateSessionId() : validateSessionId(options.sessionId);
  const existing = resolveSessionDir(root, id);
  if (existing.exists || !makeSessionDir(root, id)) {
    // Another user's state root, sessions/ or session directory says so, not just "exists".
    ensureStateDir(root, "sessions");
    refuseForeign(existing.dir);
    throw new DerunError("session_exists", `session already exists: ${id}`);
  }
  const { dir } = resolveSessionDir(root, id); // re-check: the entry may have been swapped meanwhile
  const fds: number[] = [];
  let lock: FileLock | undefined;
  try {
    const lockFd = openPrivate(dir, "append.lock", O_RDWR | O_CREAT | O_EXCL);
    fds.push(lockFd);
    lock = openLock(lockFd, resolveArtifact(dir, "append.lock"));
    await lock.lock();
    fds.push(openPrivate(dir, "output.bin", O_WRONLY | O_CREAT | O_EXCL | O_APPEND));
    fds.push(openPrivate(dir, "index.jsonl", O_WRONLY | O_CREAT | O_EXCL | O_APPEND));
    reserveRoom(dir);
    const meta: SessionMeta = {
      schema_version: SCHEMA_VERSION,
      session_id: id,
      command: [...options.command],
      working_directory: options.workingDirectory,
      started_at: new Date().toISOString(),
      retention_seconds: options.retentionSeconds,
      transport_mode: options.transportMode,
      tty_attached: options.ttyAttached,
      pid: 0,
      derun_pid: process.pid,
      ...(options.recordsCommands ? { records_commands: true } : {}),
      ...(options.secretEnv ? { secret_env: options.secretEnv } : {}),
    };
    writeFileAtomic(resolveArtifact(dir, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
    log.log("info", "session_created", {
      session_id: id,
      transport_mode: meta.transport_mode,
      tty_attached: meta.tty_attached,
      state_transition: "starting",
    });
    const writer = new FileSessionWriter(dir, meta, { fd: fds[0]!, lock }, fds[1]!, fds[2]!, log);
    writer.trim = storage && trimOf(dir, id, fds[1]!, storage, log);
    return writer;
  } catch (e) {
    lock?.close(); // the Windows handle; the fd below is the lock on POSIX, and closing it releases it
    for (const fd of fds) fs.closeSync(fd);
    // A directory without meta.json is invisible to every reader: leave none behind (a full disk).
    // It is this run's own (its mkdir made it), so no other run's files are in it.
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** The trim of a session past `max_session` (trim.ts): Linux only, where holes can be punched. */
function trimOf(dir: string, id: string, outputFd: number, storage: StoragePolicy, log: Logger): OutputTrim | undefined {
  if (process.platform !== "linux") return undefined;
  const filesystem = filesystemOf(dir);
  const max = bytesOf(storage.maxSession, filesystem.size);
  return Number.isFinite(max) ? new OutputTrim(dir, id, outputFd, max, filesystem.blockSize, log) : undefined;
}

/** Make `sessions/<id>` (0700, never through a symlink); false if another derun made it first. */
function makeSessionDir(root: string, id: string): boolean {
  const sessions = ensureStateDir(root, "sessions");
  try {
    fs.mkdirSync(path.join(sessions, id), { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  fs.chmodSync(path.join(sessions, id), 0o700);
  return true;
}

/** `unsafe_path` for a directory another user owns or can write; nothing if it is gone meanwhile. */
function refuseForeign(dir: string): void {
  try {
    checkOwnDir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** Open an artifact (a regular file, links not followed), 0600 whatever the umask. */
const openPrivate = (dir: string, name: ArtifactName, flags: number): number =>
  openRegular(resolveArtifact(dir, name), flags, { mode: 0o600 });

/** Line feeds in `bytes` (indexOf: a native search, about twice as fast as a loop here). */
function countLineFeeds(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count += 1;
  return count;
}

class FileSessionWriter implements SessionWriter {
  readonly sessionId: string;
  private offset = 0;
  /** Bytes of index.jsonl, all whole lines. */
  private indexBytes = 0;
  private readonly lineFeeds: Partial<Record<DerunOutputChannel, number>> = {};
  private readonly events: JsonlAppender;
  private readonly commands: JsonlAppender;
  private readonly gaps: JsonlAppender;
  private failure: unknown;
  /** Drops the oldest bytes past `max_session`, when the store has a disk budget. */
  trim: OutputTrim | undefined;
  private finalized = false;
  private closed = false;

  constructor(
    readonly directory: string,
    private meta: SessionMeta,
    private readonly appendLock: { readonly fd: number; readonly lock: FileLock },
    private readonly outputFd: number,
    private readonly indexFd: number,
    private readonly log: Logger,
  ) {
    this.sessionId = meta.session_id;
    this.events = new JsonlAppender(() => openPrivate(directory, "events.jsonl", O_WRONLY | O_CREAT | O_EXCL | O_APPEND));
    this.commands = new JsonlAppender(() => openPrivate(directory, "commands.jsonl", O_WRONLY | O_CREAT | O_EXCL | O_APPEND));
    this.gaps = new JsonlAppender(() => openPrivate(directory, "gaps.jsonl", O_WRONLY | O_CREAT | O_EXCL | O_APPEND));
  }

  recordGap(gap: RecordGap): void {
    this.assertOpen();
    this.gaps.append(gap);
  }

  pauseRequest(): { readonly until?: number } | undefined {
    return readPauseRequest(resolveArtifact(this.directory, "pause.json"));
  }

  clearPauseRequest(): void {
    writePauseRequest(resolveArtifact(this.directory, "pause.json"), undefined);
  }

  setPaused(state: PauseState | undefined): void {
    writePauseState(resolveArtifact(this.directory, "paused.json"), state);
  }

  async started(update: StartedUpdate): Promise<void> {
    this.assertOpen();
    const size = update.size ? { cols: update.size.cols, rows: update.size.rows } : {};
    const merged = update.outputsMerged ? { merged_output: true } : {};
    this.meta = {
      ...this.meta,
      pid: update.pid,
      transport_mode: update.transportMode,
      tty_attached: update.ttyAttached,
      ...size,
      ...merged,
    };
    writeFileAtomic(resolveArtifact(this.directory, "meta.json"), `${JSON.stringify(this.meta, null, 2)}\n`);
    this.log.log("info", "session_started", {
      session_id: this.sessionId,
      transport_mode: update.transportMode,
      tty_attached: update.ttyAttached,
      state_transition: "running",
    });
  }

  append(channel: DerunOutputChannel, bytes: Uint8Array, at?: Date): void {
    this.assertOpen();
    // After a failed write the files may end in a partial chunk or line: appending more would
    // make the index lie, so the writer refuses from then on.
    if (this.failure !== undefined)
      throw new DerunError("internal", "capture stopped after an earlier write failure", { cause: this.failure });
    if (bytes.length === 0) return;
    const offset = this.offset;
    const timestamp = (at ?? new Date()).toISOString();
    const line = Buffer.from(`{"offset":${offset},"length":${bytes.length},"channel":"${channel}","timestamp":"${timestamp}"}\n`);
    try {
      writeAllSync(this.outputFd, bytes);
      writeAllSync(this.indexFd, line);
    } catch (e) {
      this.failure = e;
      this.rollBack();
      throw e;
    }
    this.offset = offset + bytes.length;
    this.indexBytes += line.length;
    this.lineFeeds[channel] = (this.lineFeeds[channel] ?? 0) + countLineFeeds(bytes);
    this.trim?.after(this.offset);
    if (this.log.debugEnabled)
      this.log.log("debug", "chunk_appended", { session_id: this.sessionId, chunk_offset: offset, chunk_size: bytes.length });
  }

  resized(size: WindowSize, at?: Date): void {
    this.assertOpen();
    const event: SessionEvent = {
      type: "resize",
      offset: this.offset,
      cols: size.cols,
      rows: size.rows,
      timestamp: (at ?? new Date()).toISOString(),
    };
    this.events.append(event);
  }

  recordCommand(record: CommandRecord): void {
    this.assertOpen();
    this.commands.append(record);
  }

  async finalize(
    final: Omit<SessionFinal, "schema_version" | "session_id" | "ended_at" | "output_lines"> & { ended_at?: string },
  ): Promise<void> {
    this.assertOpen();
    if (this.finalized) throw new DerunError("internal", `session ${this.sessionId} is already finalized`);
    this.finalized = true;
    const record: SessionFinal = {
      schema_version: SCHEMA_VERSION,
      session_id: this.sessionId,
      state: final.state,
      ended_at: final.ended_at ?? new Date().toISOString(),
      ...(final.exit_code === undefined ? {} : { exit_code: final.exit_code }),
      ...(final.signal === undefined ? {} : { signal: final.signal }),
      ...(final.error === undefined ? {} : { error: final.error }),
      ...(final.command_marks_seen === undefined ? {} : { command_marks_seen: final.command_marks_seen }),
      // Only while the transcript is whole: after a failed append the counts describe bytes not kept.
      ...(this.failure === undefined ? { output_lines: { ...this.lineFeeds } } : {}),
    };
    // `derun rm --force` deleted the directory while the command ran: say so, not that final.json's
    // path escapes a directory that is simply gone.
    if (!fs.existsSync(this.directory))
      throw new DerunError("session_removed", `session ${this.sessionId} was removed while it ran (derun rm --force)`);
    const target = resolveArtifact(this.directory, "final.json");
    const text = `${JSON.stringify(record, null, 2)}\n`;
    try {
      writeFileAtomic(target, text);
    } catch {
      // A full disk: the room reserved at creation is for this.
      releaseRoom(this.directory);
      writeFileAtomic(target, text);
    }
    this.log.log("info", "session_finalized", {
      session_id: this.sessionId,
      state_transition: record.state,
      exit_code: record.exit_code,
      signal: record.signal,
      error: record.error,
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const fd of [this.outputFd, this.indexFd]) fs.closeSync(fd);
    this.events.close();
    this.commands.close();
    this.gaps.close();
    releaseRoom(this.directory);
    this.appendLock.lock.unlock();
    this.appendLock.lock.close();
    fs.closeSync(this.appendLock.fd);
  }

  /**
   * After a failed write (a full disk writes part of a chunk, then fails): cut both files back to
   * what the index describes, so output.bin holds no byte that no index line covers. Best effort:
   * readers serve only bytes covered by whole index lines anyway.
   */
  private rollBack(): void {
    for (const [fd, size] of [
      [this.outputFd, this.offset],
      [this.indexFd, this.indexBytes],
    ] as const) {
      try {
        fs.ftruncateSync(fd, size);
      } catch {
        // a file that cannot even be cut stays as it is
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new DerunError("internal", `session writer ${this.sessionId} is closed`);
  }
}
