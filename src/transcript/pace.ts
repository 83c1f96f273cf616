/**
 * Store reads are synchronous and the views run on whole windows, so a query over a large
 * transcript would hold the event loop for its whole length: a cancel (notifications/cancelled),
 * stdin's end and every other request would wait for it. The read loops call {@link giveTurn}
 * between windows and between runs of lines, so nothing waits longer than about SLICE_MS.
 */

/** The longest stretch of work between two turns of the event loop, in ms. */
const SLICE_MS = 10;

/** When a read loop last gave the event loop a turn (shared: what matters is how long it waited). */
let lastTurn = performance.now();

/** Whether the event loop is owed a turn (cheap: a caller checks it between lines and awaits giveTurn only then). */
export const turnDue = (): boolean => performance.now() - lastTurn >= SLICE_MS;

/** Lets the event loop run (a macrotask: I/O, timers, other requests) when SLICE_MS have passed since the last turn. */
export async function giveTurn(): Promise<void> {
  if (performance.now() - lastTurn < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastTurn = performance.now();
}
