/**
 * The facts of sessions that have ended, kept by a long-lived reader (derun mcp pages through a
 * transcript in hundreds of calls, and each read looked at the session's files four or five
 * times: a realpath, lstats, meta.json and final.json opened and parsed, the append lock tried;
 * a fifth of a call's time). Once final.json is there the facts do not change, so one lstat of the
 * session directory tells whether they still hold: a file created, renamed over or removed in it
 * (derun writes meta.json and final.json by a rename, never in place), or the directory removed,
 * replaced or made a symlink, changes its inode, mtime or ctime, and the facts are read again.
 * Live sessions are read every time (their state changes without a word).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { RecordGap } from "../core/store.ts";
import { readSessionFacts, type SessionFacts } from "./session-facts.ts";
import { resolveArtifact, type ArtifactName } from "./session-paths.ts";
import { keptFrom } from "./trim.ts";

/** Sessions remembered; the oldest is forgotten first. */
const MAX_SESSIONS = 1024;

interface Held {
  readonly facts: SessionFacts;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Its artifacts' real paths, as resolveArtifact found them (a symlink made or a file replaced changes the directory too). */
  readonly paths?: Map<ArtifactName, string>;
  /** Where its kept bytes begin (trim.json), once looked at: a trim writes trim.json by a rename, which changes the directory. */
  kept?: number;
  /** Its index was read to the end since: nothing appends to an ended session's index.jsonl. */
  indexed?: boolean;
  /** Its gaps (gaps.jsonl), once read: the recorder writes them before final.json, never after. */
  gaps?: readonly RecordGap[];
}

/** The directory's identity and times, or undefined when it is not a plain directory (any more). */
function stamp(root: string, id: string): Omit<Held, "facts" | "paths"> | undefined {
  try {
    const st = fs.lstatSync(path.join(root, "sessions", id));
    return st.isDirectory() ? { ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : undefined;
  } catch {
    return undefined;
  }
}

export class EndedFacts {
  readonly #held = new Map<string, Held>();
  /** Looks at once opened so far (trust): each is numbered by this count when it opens. */
  #opened = 0;
  /** The numbers of the looks at once open, oldest first (a Set keeps the order they were added in). */
  readonly #open = new Set<number>();
  /**
   * Sessions whose directory was checked inside a look at once, with the newest look open then.
   * Trusted while a look open at that check is still open: looks that overlap one after the other
   * (pages kept in flight) are never all closed, and a check must not outlive them (a session
   * removed, its id used again, its final.json rewritten would go unseen for as long).
   */
  readonly #checked = new Map<string, number>();

  constructor(private readonly root: string) {}

  /**
   * readSessionFacts, answered from memory for an ended session whose directory has not changed.
   * `fresh`: its directory looked at even inside a look at once (a trim after the bytes were read).
   */
  read(id: string, fresh = false): SessionFacts {
    const held = this.#held.get(id);
    if (held && !fresh && this.#trusted(id)) return held.facts;
    const now = held && stamp(this.root, id);
    if (held && now && now.ino === held.ino && now.mtimeMs === held.mtimeMs && now.ctimeMs === held.ctimeMs) {
      this.#checkedNow(id);
      return held.facts;
    }
    this.#held.delete(id);
    this.#checked.delete(id);
    // Stamped before the read: a change during it leaves a stamp that the next look finds stale.
    const before = stamp(this.root, id);
    const facts = readSessionFacts(this.root, id);
    if (facts.final && before) {
      if (this.#held.size >= MAX_SESSIONS) this.#held.delete(this.#held.keys().next().value!);
      this.#held.set(id, { facts, ...before, paths: new Map() });
      this.#checkedNow(id);
    }
    return facts;
  }

  /** resolveArtifact for the session whose facts `facts` are: remembered with them when they are an ended session's. */
  artifact(id: string, facts: SessionFacts, name: ArtifactName): string {
    const held = this.#held.get(id);
    if (held?.facts !== facts) return resolveArtifact(facts.dir, name);
    let resolved = held.paths!.get(name);
    if (resolved === undefined) held.paths!.set(name, (resolved = resolveArtifact(facts.dir, name)));
    return resolved;
  }

  /**
   * keptFrom for the session whose facts `facts` are: remembered with them when they are an ended
   * session's (a read looked for trim.json four to six times a call: a realpath and an open each).
   */
  keptFrom(id: string, facts: SessionFacts): number {
    const held = this.#held.get(id);
    if (held?.facts !== facts) return keptFrom(facts.dir, id);
    held.kept ??= keptFrom(facts.dir, id);
    return held.kept;
  }

  /**
   * Whether the index of the ended session whose facts `facts` are was read to its end while they
   * held (then a read need not open index.jsonl again to see whether it grew: four times a call
   * through the agent view). `read` true records that it just was.
   */
  indexed(id: string, facts: SessionFacts, read = false): boolean {
    const held = this.#held.get(id);
    if (held?.facts !== facts) return false;
    if (read) held.indexed = true;
    return held.indexed === true;
  }

  /**
   * The gaps of the session whose facts `facts` are (`read` reads them): remembered with them when
   * they are an ended session's (a page of derun_read_output looked for gaps.jsonl in every call).
   */
  gaps(id: string, facts: SessionFacts, read: () => RecordGap[]): RecordGap[] {
    const held = this.#held.get(id);
    if (held?.facts !== facts) return read();
    held.gaps ??= read();
    return [...held.gaps];
  }

  forget(id: string): void {
    this.#held.delete(id);
    this.#checked.delete(id);
  }

  /**
   * Opens a look at once (StoreReader.atOnce): an ended session's directory found unchanged in it
   * is not looked at again while it, or another look open at that check, is open.
   */
  trust(): () => void {
    const look = ++this.#opened;
    this.#open.add(look);
    return () => {
      this.#open.delete(look);
      if (this.#open.size === 0) this.#checked.clear();
    };
  }

  /** Checked inside a look at once still open (the oldest open is the first: looks are numbered as they open). */
  #trusted(id: string): boolean {
    const checked = this.#checked.get(id);
    if (checked === undefined) return false;
    for (const oldest of this.#open) return oldest <= checked;
    return false;
  }

  #checkedNow(id: string): void {
    if (this.#open.size > 0) this.#checked.set(id, this.#opened);
  }
}
