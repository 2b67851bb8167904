import { describe, expect, it } from "vitest";
import { keepTail } from "./run-command";

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("keepTail", () => {
  it("keeps everything under the limit", async () => {
    const { kept, total } = await keepTail(stream(["ab", "cd"]), 10);
    expect(text(kept)).toBe("abcd");
    expect(total).toBe(4);
  });

  it("keeps exactly the last bytes over the limit, and counts them all", async () => {
    const chunks = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, "0")}\n`);
    const { kept, total } = await keepTail(stream(chunks), 10);
    expect(text(kept)).toBe("7\n098\n099\n");
    expect(kept.byteLength).toBe(10);
    expect(total).toBe(400);
  });

  it("cuts inside one large chunk", async () => {
    const { kept, total } = await keepTail(stream(["0123456789"]), 3);
    expect(text(kept)).toBe("789");
    expect(total).toBe(10);
  });
});
