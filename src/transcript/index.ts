/**
 * The read engine: every byte that leaves a recorded session for a reader (an MCP tool, a CLI
 * command, an export) is read through this module. Tools, the CLI and export import only this
 * entry; the files beside it are its parts. It exports what readers need by name, and no read that
 * hands out a session's bytes before masking (readWindow, windowsForward, the raw text stream):
 * those stay inside the engine, so that every read above it is a masked one
 * (test/architecture/layers.test.ts checks it).
 */
export { DEFAULT_LIMITS, type QueryLimits } from "../core/tool.ts";
export { agentView, outsideScopeText } from "./agent-view.ts";
export { asciicastLines, DEFAULT_COLS, DEFAULT_ROWS } from "./asciicast.ts";
export { readCommands, shellCommands, type ShownCommand } from "./commands.ts";
export { findFailure } from "./failure-find.ts";
export { FAILURE_DEFAULT_MAX_CHARS, type FailureReport, failureReport, type ReadHint, renderFailure } from "./failure-report.ts";
export { type FollowEnd, followOutput, followText } from "./follow.ts";
export { gapNotice, gapsBetween, type NotRecorded, notRecordedFact, notRecordedField, recordingGaps } from "./gaps.ts";
export { configureRedaction, redactedField, redactionEnabled } from "./masking.ts";
export { keepMaskMaps } from "./mask-map.ts";
export { MemoryBound } from "./memory-bound.ts";
export { type Encoding, type OutputChunk, type OutputWindow, readOutput, type ReadOutputResult, readResult } from "./output.ts";
export { type CommandPart, commandPart, type PageRecording, pageRecording } from "./page-recording.ts";
export { rawOutput, rawTailStart } from "./raw-output.ts";
export { type ReadTextLines, screenLines, textLines } from "./read-text-lines.ts";
export { commandLine, lineSpan, maskedFact, oneLine, outcome, SEP, size, when, withLines } from "./render.ts";
export { compilePattern, type Found, type FoundLine, matchesIn, renderFound, type SearchPattern, searchTranscript } from "./search.ts";
export { searchAllSessions, type SessionsSearched, sessionsSearchedText, type SkippedSession } from "./search-sessions.ts";
export { NewestSession, readSession, readSessions, sessionDetail, sessionIds, sessionProgress, sessionSummary } from "./session.ts";
export { isSessionRef, resolveSessionId, SESSION_REF_HINT } from "./session-ref.ts";
export { type Subject, subjectOf, subjectText } from "./subject.ts";
export { readTextView } from "./text-read.ts";
export { selectText } from "./text-select.ts";
export { textBatches } from "./text-stream.ts";
export { type CommandSelector, oneStreamReason, openTranscript, type Transcript, withoutPromptFiller } from "./transcript.ts";
export { isRunning } from "./unrecorded-commands.ts";
export { waitForEnd } from "./wait-end.ts";
export { type WaitResult, waitUntil } from "./wait-until.ts";
