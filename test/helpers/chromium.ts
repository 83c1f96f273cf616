/**
 * A real browser for the exported page's tests: Debian's headless Chromium (installed by .ci/run)
 * opens a file:// page with no name resolving (`MAP * ~NOTFOUND`), lets its timers run (virtual
 * time) and gives the DOM as rendered, a screenshot, and every request the page itself made, read
 * from Chromium's net log (the browser's own background requests carry no page origin and are left out).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli.ts";

export const chromium = Bun.which("chromium");

export interface Rendered {
  /** The DOM after the page's scripts ran (`--dump-dom`). */
  readonly dom: string;
  /** The URLs the page asked the network for. */
  readonly requests: string[];
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND",
  // Virtual time: the page's timers and promises run until it is idle or 10 s of its time passed.
  "--virtual-time-budget=10000",
];

async function runChromium(args: readonly string[]): Promise<string> {
  using profile = tempDir("derun-chromium-");
  const proc = Bun.spawn([chromium!, ...FLAGS, `--user-data-dir=${profile.path}`, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (proc.exitCode !== 0) throw new Error(`chromium exited ${proc.exitCode}: ${err.slice(-2000)}`);
  return out;
}

/** Opens `url` (a file:// URL, a fragment allowed) and returns its rendered DOM and its own requests. */
export async function render(url: string): Promise<Rendered> {
  using logs = tempDir("derun-netlog-");
  const netLog = join(logs.path, "net.json");
  const dom = await runChromium([`--log-net-log=${netLog}`, "--dump-dom", url]);
  return { dom, requests: pageRequests(netLog) };
}

/** Saves a PNG of `url` in a `width`x`height` window. */
export async function screenshot(url: string, png: string, width = 1200, height = 760): Promise<void> {
  await runChromium([`--window-size=${width},${height}`, `--screenshot=${png}`, url]);
}

interface NetLog {
  readonly constants: { readonly logEventTypes: Record<string, number> };
  readonly events: ReadonlyArray<{ readonly type: number; readonly params?: { readonly url?: string; readonly initiator?: string } }>;
}

/** Requests started on behalf of a page (initiator: its origin, `null` for file://), not by the browser itself. */
function pageRequests(netLog: string): string[] {
  // Chromium may leave the log's closing brackets out when it exits quickly.
  let text = readFileSync(netLog, "utf8").trimEnd();
  if (!text.endsWith("}")) text = `${text.replace(/,$/, "")}]}`;
  const log = JSON.parse(text) as NetLog;
  const start = log.constants.logEventTypes.URL_REQUEST_START_JOB;
  return log.events
    .filter((e) => e.type === start && e.params?.url !== undefined && e.params.initiator !== "not an origin")
    .map((e) => e.params!.url!);
}

/** The player's screen in a dumped DOM: one string per terminal row, trailing blanks trimmed. */
export function playerScreen(dom: string): string[] {
  const pre = dom.match(/<pre class="ap-term-text[^"]*"[^>]*>([\s\S]*?)<\/pre>/);
  if (!pre) return [];
  return pre[1]!
    .split(/<span class="ap-line"/)
    .slice(1)
    .map((row) => unescapeHtml(row.replace(/^[^>]*>/, "").replace(/<[^>]*>/g, "")).trimEnd());
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };
export const unescapeHtml = (text: string): string => text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name]!);
