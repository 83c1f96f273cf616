/** Session facts as the tools report them: snake_case, optional fields omitted rather than null. */
import type { SessionInfo } from "../core/store.ts";

/** Copy of `fields` without the keys whose value is undefined, so JSON and structuredContent agree. */
const defined = <T extends Record<string, unknown>>(fields: T): T =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;

/** One row of derun_list_sessions. */
export const sessionSummary = (info: SessionInfo) =>
  defined({
    session_id: info.meta.session_id,
    state: info.state,
    command: [...info.meta.command],
    started_at: info.meta.started_at,
    ended_at: info.ended_at,
    exit_code: info.final?.exit_code,
    signal: info.final?.signal,
    output_bytes: info.output_bytes,
    transport_mode: info.meta.transport_mode,
  });

/** The session object of derun_get_session. */
export const sessionDetail = (info: SessionInfo) =>
  defined({
    session_id: info.meta.session_id,
    state: info.state,
    command: [...info.meta.command],
    working_directory: info.meta.working_directory,
    started_at: info.meta.started_at,
    ended_at: info.ended_at,
    exit_code: info.final?.exit_code,
    signal: info.final?.signal,
    error: info.error,
    pid: info.meta.pid,
    transport_mode: info.meta.transport_mode,
    tty_attached: info.meta.tty_attached,
    merged_output: info.meta.merged_output,
    cols: info.meta.cols,
    rows: info.meta.rows,
    output_bytes: info.output_bytes,
    retention_seconds: info.meta.retention_seconds,
    expires_at: info.expires_at,
  });
