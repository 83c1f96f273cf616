/**
 * Reading one stream with Bun's own reader: for a pipe Bun made, and for derun's own ends when the
 * reader thread is not there (./stream-reader.ts).
 */

/** The part of a stream reader used here (Bun's pipe and fd readers have different nominal types). */
export interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

/**
 * Delivers every chunk as it arrives; resolves at the stream's end. A read error ends the stream
 * too: EIO is how a PTY master reports that the child's last copy of the slave is closed, a normal
 * end; the child's exit still decides the result.
 */
export async function pumpStream(reader: ChunkReader, deliver: (bytes: Uint8Array) => void): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) deliver(value);
    }
  } catch {
    // the end, as above
  }
}
