/**
 * Loaded before every test file (bunfig.toml `[test] preload`). PTY and end-to-end tests spawn real
 * processes: on a loaded 2-core machine they need more than Bun's default 5 s. (bunfig's own
 * `[test] timeout` key is not read by Bun 1.4.5: measured, a 6 s test timed out at 5 s.)
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
