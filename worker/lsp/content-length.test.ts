import { describe, expect, it } from "vitest";
import { ContentLengthReader, encodeMessage } from "./content-length";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

describe("Content-Length framing", () => {
  it("frames a message with its length in bytes, not characters", () => {
    const framed = text(encodeMessage('{"a":"é€"}'));
    expect(framed).toBe('Content-Length: 13\r\n\r\n{"a":"é€"}');
  });

  it("reads back what it framed, whatever the chunks", () => {
    const messages = ['{"id":1}', '{"method":"x","params":{"text":"ünïcödé 🙂"}}', "{}"];
    const stream = new Uint8Array(messages.flatMap((m) => [...encodeMessage(m)]));
    for (const size of [1, 2, 3, 7, 64, stream.byteLength]) {
      const reader = new ContentLengthReader();
      const out: string[] = [];
      for (let i = 0; i < stream.byteLength; i += size) out.push(...reader.push(stream.subarray(i, i + size)));
      expect(out, `chunks of ${size}`).toEqual(messages);
      expect(reader.pending).toBe(0);
    }
  });

  it("accepts other headers and any case", () => {
    const reader = new ContentLengthReader();
    const input = "content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}";
    expect(reader.push(bytes(input))).toEqual(["{}"]);
  });

  it("waits for a body that has not all arrived", () => {
    const reader = new ContentLengthReader();
    expect(reader.push(bytes('Content-Length: 10\r\n\r\n{"a":'))).toEqual([]);
    expect(reader.push(bytes('"bc"}'))).toEqual(['{"a":"bc"}']);
  });

  it("skips a stray line a server printed and goes on with the next message", () => {
    const malformed: string[] = [];
    const reader = new ContentLengthReader((header) => malformed.push(header));
    const out = reader.push(bytes(`Debugger listening\r\n\r\n${text(encodeMessage('{"id":2}'))}`));
    expect(out).toEqual(['{"id":2}']);
    expect(malformed).toEqual(["Debugger listening"]);
  });

  it("refuses a length that is not a number, or two lengths", () => {
    const malformed: string[] = [];
    const reader = new ContentLengthReader((header) => malformed.push(header));
    expect(reader.push(bytes("Content-Length: -1\r\n\r\n"))).toEqual([]);
    expect(reader.push(bytes("Content-Length: 2\r\nContent-Length: 3\r\n\r\n"))).toEqual([]);
    expect(reader.push(encodeMessage("{}"))).toEqual(["{}"]);
    expect(malformed).toHaveLength(2);
  });

  it("drops endless junk without a header end instead of buffering it", () => {
    const malformed: string[] = [];
    const reader = new ContentLengthReader((header) => malformed.push(header));
    reader.push(bytes("x".repeat(20_000)));
    expect(malformed).toHaveLength(1);
    expect(reader.pending).toBe(0);
    expect(reader.push(encodeMessage('{"ok":true}'))).toEqual(['{"ok":true}']);
  });
});
