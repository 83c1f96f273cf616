/**
 * `subscriptions/listen` (2026-07-28): the MCP SDK's serveStdio answers it itself, before any server
 * instance sees it, and puts the instance's change notifications onto the open subscriptions. So
 * derun reads the request on its way in (./stdio.ts) to start the watches it names, as
 * `resources/list` and `resources/subscribe` start them in the 2025 era (./subscriptions.ts).
 */
import { PROTOCOL_VERSION_META_KEY, type Transport } from "@modelcontextprotocol/server";

/** Resources one listen may follow: each is a loop of its own (a listen is one line, up to 10,000 values). */
export const MAX_LISTENED_RESOURCES = 100;

/** What a listen asks derun to watch. */
export interface ListenWatches {
  readonly list: boolean;
  readonly uris: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The watches of a `subscriptions/listen` request claiming the 2026 era; undefined for any other message. */
export const listenWatches = (message: unknown): ListenWatches | undefined => {
  if (!isObject(message) || message.method !== "subscriptions/listen" || !("id" in message)) return undefined;
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  if (typeof meta[PROTOCOL_VERSION_META_KEY] !== "string") return undefined;
  const filter = isObject(params.notifications) ? params.notifications : {};
  const asked = Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions : [];
  const uris = asked.filter((uri): uri is string => typeof uri === "string").slice(0, MAX_LISTENED_RESOURCES);
  return { list: filter.resourcesListChanged === true, uris };
};

/**
 * Read each message on its way from `transport` to the SDK (the `onmessage` serveStdio set): a
 * listen's watches are armed (`listen`) before it is passed on, so that its acknowledgement means
 * changes from then on are heard. While they are armed, the messages after it wait, in order.
 */
export const hearListens = (transport: Transport, listen: (watches: ListenWatches) => Promise<void>): void => {
  const deliver = transport.onmessage;
  let arming: Promise<void> | undefined;
  transport.onmessage = (message, extra) => {
    const watches = listenWatches(message);
    if (!watches && !arming) return deliver?.(message, extra);
    const after = (arming ?? Promise.resolve())
      .then(() => (watches ? listen(watches) : undefined))
      .catch(() => undefined)
      .then(() => deliver?.(message, extra));
    arming = after;
    void after.then(() => {
      if (arming === after) arming = undefined;
    });
  };
};
