/**
 * The file-backed Store: sessions under `<root>/sessions/<id>/`. Readers serve only bytes covered
 * by complete index lines, read output.bin positionally (only the requested window), and keep a
 * per-session incremental index so a read never re-parses the whole index.
 */
import * as fs from "node:fs";
import {
  type DiskUsage,
  isLiveState,
  type StoragePolicy,
  type CreateSessionOptions,
  type DerivedFile,
  type IndexRecords,
  type OutputReader,
  type PauseState,
  type RecordGap,
  type ReadResult,
  type RemoveOutcome,
  type SessionEvent,
  type SessionInfo,
  type SessionWriter,
  type Store,
  type SweepOptions,
  type SweepOutcome,
} from "../core/store.ts";
import { DerunError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { IndexCache, type SessionIndex } from "./index-cache.ts";
import { OutputWaiter } from "./output-waiter.ts";
import { waitForChange } from "./change-waiter.ts";
import { removeSession } from "./remove-session.ts";
import { sweepSessions } from "./retention.ts";
import { entrySizes, filesystemOf, REMOVING_PREFIX } from "./disk-usage.ts";
import { resolveArtifact, resolveSessionDir } from "./session-paths.ts";
import type { CommandRecord, CommandsQuery } from "../core/store.ts";
import { findJsonlRecord, readJsonlFile } from "./jsonl-file.ts";
import { parseCommand, parseEvent, parseGap } from "./session-events.ts";
import { readPauseState, writePauseRequest } from "./pause-files.ts";
import { readSessionFacts, type SessionFacts } from "./session-facts.ts";
import { isValidSessionId } from "../core/store/session-id.ts";
import { EndedFacts } from "./ended-facts.ts";
import { createSessionWriter } from "./session-writer.ts";
import { stateDir, writeFileAtomic } from "../safe-fs/index.ts";
import { SCHEMA_VERSION } from "../core/enums.ts";
import { keptFrom } from "./trim.ts";
import { openOutputReader, readSlices } from "./output-read.ts";
import { readDerivedFile, writeDerivedFile } from "./derived-files.ts";

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
    readonly storage?: StoragePolicy,
  ) {
    this.ended = new EndedFacts(root);
  }

  create(options: CreateSessionOptions): Promise<SessionWriter> {
    return createSessionWriter(this.root, options, this.log, this.storage);
  }

  async usage(): Promise<DiskUsage> {
    const entries = entrySizes(this.root)
      .filter(({ name }) => !name.startsWith(REMOVING_PREFIX))
      .map(({ name, bytes }) => ({ session_id: name, bytes }));
    const { size, free, blockSize } = filesystemOf(this.root);
    const total_bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
    return { entries, total_bytes, filesystem: { size, free, block_size: blockSize } };
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

  async atOnce<T>(work: () => Promise<T>): Promise<T> {
    const close = this.ended.trust();
    try {
      return await work();
    } finally {
      close();
    }
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
    // A trimmed session's read begins where its kept bytes do; trim.json is read again after the
    // bytes are, and a trim that moved past them meanwhile means reading again (trim.ts).
    for (let kept = info.kept_from ?? 0; ; ) {
      // Never past what was asked: a window before the kept bytes reads as empty, and next_cursor says where they begin.
      const start = Math.min(Math.max(cursor, kept), index.committed);
      const end = Math.max(start, Math.min(index.committed, cursor + maxBytes));
      // output.bin by the path kept with an ended session's facts (resolved afresh for a live one).
      const output = end > start ? this.ended.artifact(sessionId, facts, "output.bin") : "";
      const slices = end > start ? readSlices(index.records, facts.dir, start, end, sessionId, output) : [];
      // Only bytes read can have been trimmed under the read. Nothing read (the trim is past the
      // committed end this look saw, which is clamped there): answered as is, or this loops for ever.
      const keptNow = end > start ? this.keptAfterRead(sessionId, facts) : kept;
      if (end > start && keptNow > start) {
        kept = keptNow;
        continue;
      }
      const trimmed = kept > 0 ? { kept_from: kept } : {};
      return { slices, next_cursor: end, output_bytes: index.committed, state: info.state, ...trimmed };
    }
  }

  async openOutput(sessionId: string): Promise<OutputReader> {
    // The files are found and checked once: the descriptor stays on the file that was checked.
    const { index, facts, info } = this.info(sessionId);
    return openOutputReader(facts.dir, sessionId, index.committed, info.kept_from ?? 0, isLiveState(info.state));
  }

  async readDerived(sessionId: string, name: DerivedFile, limit: number): Promise<Uint8Array | undefined> {
    return readDerivedFile(this.ended.read(sessionId).dir, name, limit);
  }

  async writeDerived(sessionId: string, name: DerivedFile, bytes: Uint8Array): Promise<boolean> {
    return writeDerivedFile(this.ended.read(sessionId).dir, name, bytes);
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

  async commands(sessionId: string, options: CommandsQuery = {}): Promise<CommandRecord[]> {
    const file = resolveArtifact(this.ended.read(sessionId).dir, "commands.jsonl");
    if (options.number === undefined) return readJsonlFile(file, parseCommand, { newest: true });
    const wanted = options.number;
    const found = findJsonlRecord(file, parseCommand, (record) => record.number === wanted);
    return found ? [found] : [];
  }

  async gaps(sessionId: string): Promise<RecordGap[]> {
    const facts = this.ended.read(sessionId);
    return this.ended.gaps(sessionId, facts, () => readJsonlFile(this.ended.artifact(sessionId, facts, "gaps.jsonl"), parseGap));
  }

  async pauseState(sessionId: string): Promise<PauseState | undefined> {
    return readPauseState(resolveArtifact(this.ended.read(sessionId).dir, "paused.json"));
  }

  async requestPause(sessionId: string, request: { readonly until?: Date } | undefined): Promise<void> {
    writePauseRequest(resolveArtifact(this.ended.read(sessionId).dir, "pause.json"), request);
  }

  async sweep(options: SweepOptions = {}): Promise<SweepOutcome[]> {
    const storage = options.storage ?? this.storage;
    return sweepSessions(this.root, { ...options, ...(storage ? { storage } : {}) }, this.log, (id) => {
      this.indexes.delete(id);
      this.ended.forget(id);
    });
  }

  async setHidden(sessionId: string, hidden: boolean): Promise<void> {
    const { dir } = this.ended.read(sessionId);
    const file = resolveArtifact(dir, "hidden.json");
    if (!hidden) return fs.rmSync(file, { force: true });
    const at = new Date().toISOString();
    writeFileAtomic(file, `${JSON.stringify({ schema_version: SCHEMA_VERSION, session_id: sessionId, hidden_at: at })}\n`);
  }

  async remove(sessionId: string, options: { readonly force?: boolean } = {}): Promise<RemoveOutcome> {
    return removeSession(this.root, sessionId, options.force ?? false, this.log, (id) => {
      this.indexes.delete(id);
      this.ended.forget(id);
    });
  }

  private info(sessionId: string): { info: SessionInfo; index: SessionIndex; facts: SessionFacts } {
    const facts = this.ended.read(sessionId);
    const index =
      (this.ended.indexed(sessionId, facts) ? this.indexes.cached(sessionId) : undefined) ??
      this.indexes.get(sessionId, this.ended.artifact(sessionId, facts, "index.jsonl"));
    this.ended.indexed(sessionId, facts, true);
    // Not the output up to the damage, as if that were all of it: a reader would take it for the whole.
    if (index.brokenLine !== undefined)
      throw new DerunError("corrupt_session", `corrupt session ${sessionId}: index.jsonl line ${index.brokenLine} is not a valid record`);
    return { info: toInfo(facts, index.committed, this.ended.keptFrom(sessionId, facts)), index, facts };
  }

  /**
   * trim.json looked at again after a read's bytes were: an ended session's answered from memory
   * while its directory is unchanged (one lstat: a trim renames trim.json in), a live one's read.
   */
  private keptAfterRead(sessionId: string, facts: SessionFacts): number {
    // Looked at afresh inside a look at once too (atOnce): a trim during the read must be seen.
    return facts.final ? this.ended.keptFrom(sessionId, this.ended.read(sessionId, true)) : keptFrom(facts.dir, sessionId);
  }
}

const toInfo = (facts: SessionFacts, output_bytes: number, kept_from = 0): SessionInfo => ({
  ...(kept_from > 0 ? { kept_from } : {}),
  meta: facts.meta,
  final: facts.final,
  state: facts.state,
  output_bytes,
  ended_at: facts.ended_at,
  error: facts.error,
  expires_at: facts.expires_at,
  ...(facts.hidden ? { hidden: true } : {}),
});

const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
