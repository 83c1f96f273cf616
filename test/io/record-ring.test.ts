/**
 * The shared ring under the reader and writer threads, on one thread (both ends are plain objects
 * over the same memory): a consumer that fell behind gets the small records of one stream joined
 * into one view (never across streams, an end record or the ring's end), and a cap keeps the
 * producer from filling more of the ring than the consumer allows.
 */
import { describe, expect, test } from "bun:test";
import { createRecordRing, RingConsumer, RingProducer } from "../../src/io/record-ring.ts";

function ring(bytes: number) {
  const init = createRecordRing(bytes, 64);
  return { producer: new RingProducer(init), consumer: new RingConsumer(init) };
}

function put(producer: RingProducer, tag: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  producer.region(bytes.length).set(bytes);
  producer.commitQuietly(tag, bytes.length);
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("record ring", () => {
  test("headRun joins one stream's records that follow on, and stops at another stream, an end record, or maxBytes", () => {
    const { producer, consumer } = ring(1024);
    put(producer, 0, "ab");
    put(producer, 0, "cd");
    put(producer, 1, "ef");
    put(producer, 1, "gh");
    producer.commitQuietly(1, 0);
    put(producer, 0, "ij");
    put(producer, 0, "kl");
    put(producer, 0, "mn");
    const first = consumer.headRun(1024)!;
    expect([first.tag, decode(first.bytes), first.records]).toEqual([0, "abcd", 2]);
    consumer.release(first.records);
    const second = consumer.headRun(1024)!;
    expect([second.tag, decode(second.bytes), second.records]).toEqual([1, "efgh", 2]);
    consumer.release(second.records);
    const end = consumer.headRun(1024)!;
    expect([end.tag, end.bytes.length, end.records]).toEqual([1, 0, 1]);
    consumer.release(end.records);
    const bounded = consumer.headRun(4)!;
    expect([decode(bounded.bytes), bounded.records]).toEqual(["ijkl", 2]);
    consumer.release(bounded.records);
    expect(decode(consumer.headRun(4)!.bytes)).toBe("mn");
    consumer.release();
    expect(consumer.headRun(4)).toBeUndefined();
    expect(producer.drained).toBe(true);
  });

  test("headRun never joins across the end of the ring", () => {
    const { producer, consumer } = ring(8);
    put(producer, 0, "abcdef");
    consumer.release(); // the producer is at 6 of 8
    put(producer, 0, "gh"); // ends exactly at the ring's end
    put(producer, 0, "ij"); // starts again at 0
    const run = consumer.headRun(100)!;
    expect([decode(run.bytes), run.records]).toEqual(["gh", 1]);
    consumer.release(run.records);
    expect(decode(consumer.headRun(100)!.bytes)).toBe("ij");
  });

  test("a cap leaves the producer only that much of the ring, and lifting it gives the rest back", () => {
    const { producer, consumer } = ring(1024);
    consumer.cap(16);
    expect(producer.room()).toBe(16);
    put(producer, 0, "0123456789");
    expect(producer.room()).toBe(6);
    put(producer, 0, "abcdef");
    expect(producer.room()).toBe(0);
    consumer.cap(32);
    expect(producer.room()).toBe(16);
    consumer.cap(0);
    expect(producer.room()).toBe(1024 - 16);
    consumer.release(2);
    expect(producer.room()).toBe(1024 - 16); // contiguous room up to the ring's end
  });
});
