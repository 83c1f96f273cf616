/**
 * The file-backed Store: sessions under `<root>/sessions/<id>/`. Readers serve only bytes covered
 * by complete index lines, read output.bin positionally (only the requested window), and keep a
 * per-session incremental index so a read never re-parses the whole index.
 */
import * as fs from "node:fs";
import {
  isLiveState,
  type CreateSessionOptions,
  type IndexRecords,
  type OutputReader,
  type OutputSlice,
  type ReadResult,
  type RemoveOutcome,
  type SessionEvent,
  type SessionInfo,
  type SessionWriter,
  type Store,
  type SweepOptions,
  type SweepOutcome,
} from "../store.ts";
import { DerunError, isDerunError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { IndexCache, type SessionIndex } from "./index-cache.ts";
import { OutputWaiter } from "./output-waiter.ts";
import { waitForChange } from "./change-waiter.ts";
import { removeSession } from "./remove-session.ts";
import { sweepSessions } from "./retention.ts";
import { resolveArtifact, resolveSessionDir } from "./session-paths.ts";
import type { CommandRecord } from "../shell/commands.ts";
import { readJsonlFile } from "./jsonl-file.ts";
import { parseCommand, parseEvent } from "./session-events.ts";
import { readSessionFacts, type SessionFacts } from "./session-facts.ts";
import { EndedFacts } from "./ended-facts.ts";
import { isValidSessionId } from "./session-id.ts";
import { createSessionWriter } from "./session-writer.ts";
import { openRegular, stateDir } from "../safe-fs/index.ts";

export class FileStore implements Store {
  private readonly indexes = new IndexCache();
  private readonly ended: EndedFacts;

  /**
   * No I/O here: the state root is touched only when the store is used. `waiter` serves every
   * wait on this store (tests pass one that tells them when a wait parks).
   */
  constructor(
    readonly root: string,
    private readonly log: Logger,
    private readonly waiter = new OutputWaiter(),
  ) {
    this.ended = new EndedFacts(root);
  }

  create(options: CreateSessionOptions): Promise<SessionWriter> {
    return createSessionWriter(this.root, options, this.log);
  }

  async list(): Promise<SessionInfo[]> {
    const sessions: SessionInfo[] = [];
    for (const name of await this.ids()) {
      try {
        const facts = this.ended.read(name);
        const output = this.indexes.committed(name, this.ended.artifact(name, facts, "index.jsonl"));
        sessions.push(toInfo(facts, output));
      } catch {
        // unreadable, unsafe or removed meanwhile: listed by nobody, swept by retention
      }
    }
    return sessions.sort((a, b) => compareDesc(a.meta.started_at, b.meta.started_at) || compareDesc(a.meta.session_id, b.meta.session_id));
  }

  async ids(): Promise<string[]> {
    let names: string[];
    // A symlinked sessions/ is not followed: refused (unsafe_path) as every reader refuses it.
    const dir = stateDir(this.root, "sessions");
    try {
      names = dir.exists ? fs.readdirSync(dir.path) : [];
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    return names.filter(isValidSessionId);
  }

  async get(sessionId: string): Promise<SessionInfo> {
    return this.info(sessionId).info;
  }

  async read(sessionId: string, cursor: number, maxBytes: number): Promise<ReadResult> {
    if (!Number.isSafeInteger(cursor) || cursor < 0)
      throw new DerunError("invalid_argument", `cursor must be a non-negative integer, got ${cursor}`);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
      throw new DerunError("invalid_argument", `max_bytes must be a non-negative integer, got ${maxBytes}`);
    const { info, index, facts } = this.info(sessionId);
    const start = Math.min(cursor, index.committed);
    const end = Math.min(index.committed, start + maxBytes);
    const slices: OutputSlice[] = [];
    if (end > start) {
      const window = readWindow(this.ended.artifact(sessionId, facts, "output.bin"), start, end, sessionId);
      const { records } = index;
      for (let i = records.firstEndingAfter(start); i < records.count; i++) {
        const offset = records.offset(i);
        if (offset >= end) break;
        const from = Math.max(offset, start);
        const to = Math.min(records.end(i), end);
        if (to > from) {
          slices.push(new RecordSlice(records, i, from, to, window.subarray(from - start, to - start)));
        }
      }
    }
    return { slices, next_cursor: end, output_bytes: index.committed, state: info.state };
  }

  async openOutput(sessionId: string): Promise<OutputReader> {
    // The files are found and checked once: the descriptor stays on the file that was checked.
    const { index, facts } = this.info(sessionId);
    const committed = index.committed;
    const fd = openOutputFile(this.ended.artifact(sessionId, facts, "output.bin"), sessionId);
    let open = true;
    const close = () => {
      if (open) fs.closeSync(fd);
      open = false;
    };
    return {
      committed,
      readInto(start: number, into: Uint8Array): number {
        if (!Number.isSafeInteger(start) || start < 0)
          throw new DerunError("invalid_argument", `cursor must be a non-negative integer, got ${start}`);
        if (!open) throw new DerunError("invalid_argument", `the output of session ${sessionId} was closed`);
        const end = Math.min(committed, start + into.length);
        if (end <= start) return 0;
        fillFromFd(fd, start, into.subarray(0, end - start), sessionId);
        return end - start;
      },
      [Symbol.dispose]: close,
    };
  }

  async records(sessionId: string): Promise<IndexRecords> {
    return this.info(sessionId).index.records;
  }

  async waitForOutput(sessionId: string, cursor: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const { info, facts } = this.info(sessionId);
    if (info.output_bytes > cursor || !isLiveState(info.state) || timeoutMs <= 0) return;
    // Every waiter on this session shares one check per file event (see OutputWaiter).
    const progress = async () => {
      const { info } = this.info(sessionId);
      return { committed: info.output_bytes, live: isLiveState(info.state) };
    };
    await this.waiter.wait(facts.dir, cursor, progress, timeoutMs, signal);
  }

  async watchEnds(timeoutMs: number, signal?: AbortSignal, live?: readonly string[]): Promise<{ readonly changed: Promise<void> }> {
    const liveDirs: string[] = [];
    for (const id of live ?? (await this.ids())) {
      try {
        const facts = readSessionFacts(this.root, id);
        if (isLiveState(facts.state)) liveDirs.push(facts.dir);
      } catch {
        // So new that its meta.json is not written yet: its directory is watched all the same, or
        // its meta.json and final.json would come unseen (they are not changes of sessions/).
        // Removed meanwhile: sessions/ is watched.
        try {
          const { dir, exists } = resolveSessionDir(this.root, id);
          if (exists) liveDirs.push(dir);
        } catch {
          // unsafe: never read, never watched
        }
      }
    }
    return { changed: waitForChange({ root: this.root, liveDirs, timeoutMs, signal }) };
  }

  async events(sessionId: string): Promise<SessionEvent[]> {
    return readJsonlFile(resolveArtifact(this.ended.read(sessionId).dir, "events.jsonl"), parseEvent);
  }

  async commands(sessionId: string): Promise<CommandRecord[]> {
    return readJsonlFile(resolveArtifact(this.ended.read(sessionId).dir, "commands.jsonl"), parseCommand);
  }

  async sweep(options: SweepOptions = {}): Promise<SweepOutcome[]> {
    return sweepSessions(this.root, options, this.log, (id) => {
      this.indexes.delete(id);
      this.ended.forget(id);
    });
  }

  async remove(sessionId: string, options: { readonly force?: boolean } = {}): Promise<RemoveOutcome> {
    return removeSession(this.root, sessionId, options.force ?? false, this.log, (id) => {
      this.indexes.delete(id);
      this.ended.forget(id);
    });
  }

  private info(sessionId: string): { info: SessionInfo; index: SessionIndex; facts: SessionFacts } {
    const facts = this.ended.read(sessionId);
    const index = this.indexes.get(sessionId, this.ended.artifact(sessionId, facts, "index.jsonl"));
    // Not the output up to the damage, as if that were all of it: a reader would take it for the whole.
    if (index.brokenLine !== undefined)
      throw new DerunError("corrupt_session", `corrupt session ${sessionId}: index.jsonl line ${index.brokenLine} is not a valid record`);
    return { info: toInfo(facts, index.committed), index, facts };
  }
}

/**
 * One record's part of a read. Its time becomes text only when asked: a window of small records
 * holds thousands of them, and most readers want only the bytes.
 */
class RecordSlice implements OutputSlice {
  readonly channel: OutputSlice["channel"];

  constructor(
    private readonly records: IndexRecords,
    private readonly i: number,
    readonly start: number,
    readonly end: number,
    readonly bytes: Uint8Array,
  ) {
    this.channel = records.channel(i);
  }

  get timestamp(): string {
    return this.records.timestamp(this.i);
  }
}

const toInfo = (facts: SessionFacts, output_bytes: number): SessionInfo => ({
  meta: facts.meta,
  final: facts.final,
  state: facts.state,
  output_bytes,
  ended_at: facts.ended_at,
  error: facts.error,
  expires_at: facts.expires_at,
});

const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/** Positional read of exactly `[start, end)` of output.bin. */
function readWindow(outputPath: string, start: number, end: number, sessionId: string): Buffer {
  const buffer = Buffer.allocUnsafe(end - start);
  fillFrom(outputPath, start, buffer, sessionId);
  return buffer;
}

/** `buffer` filled with output.bin's bytes from `start`. */
function fillFrom(outputPath: string, start: number, buffer: Uint8Array, sessionId: string): void {
  const fd = openOutputFile(outputPath, sessionId);
  try {
    fillFromFd(fd, start, buffer, sessionId);
  } finally {
    fs.closeSync(fd);
  }
}

/** output.bin opened for reading (`corrupt_session` when it is missing). */
function openOutputFile(outputPath: string, sessionId: string): number {
  try {
    return openRegular(outputPath, fs.constants.O_RDONLY);
  } catch (e) {
    if (!isDerunError(e) && (e as NodeJS.ErrnoException).code === "ENOENT") {
      throw new DerunError("corrupt_session", `corrupt session ${sessionId}: output.bin is missing`);
    }
    throw e;
  }
}

function fillFromFd(fd: number, start: number, buffer: Uint8Array, sessionId: string): void {
  let got = 0;
  while (got < buffer.length) {
    const n = fs.readSync(fd, buffer, got, buffer.length - got, start + got);
    if (n === 0) throw new DerunError("corrupt_session", `corrupt session ${sessionId}: output.bin is shorter than its index`);
    got += n;
  }
}
