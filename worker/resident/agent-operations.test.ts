import { describe, expect, expectTypeOf, it } from "vitest";
import type { AgentClient } from "./agent-client";
import type { AgentStat } from "./agent-operations";

/**
 * The table of operations is checked by the compiler: an operation that does
 * not exist, or arguments it does not take, do not build (each
 * `@ts-expect-error` fails the typecheck when its line becomes valid).
 */
describe("the agent's table of operations", () => {
  it("types each operation's arguments and answer", () => {
    const uses = async (client: AgentClient) => {
      const stat = await client.call("stat", ["/workspace/a"]);
      expectTypeOf(stat).toEqualTypeOf<AgentStat>();
      expectTypeOf(await client.call("mkdir", ["/workspace/d", "1"])).toEqualTypeOf<undefined>();
      expectTypeOf((await client.call("run", ["{}", "true"])).exitCode).toEqualTypeOf<number>();
      const read = await client.open("read", ["/workspace/a", "stat"]);
      expectTypeOf(read.head).toEqualTypeOf<AgentStat | undefined>();
      expectTypeOf(await (await client.open("command", ["{}", "true"])).result).toEqualTypeOf<{ exitCode: number }>();
      // @ts-expect-error: no such operation
      await client.call("chmod", ["/workspace/a"]);
      // @ts-expect-error: mkdir's flag is "0" or "1"
      await client.call("mkdir", ["/workspace/d", "yes"]);
      // @ts-expect-error: stat takes one path
      await client.call("stat", []);
      // @ts-expect-error: a read streams; it is opened, not called
      await client.call("read", ["/workspace/a"]);
    };
    expect(uses).toBeTypeOf("function");
  });
});
