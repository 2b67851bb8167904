import { afterEach, describe, expect, it, vi } from "vitest";

describe("unsaved work registry", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("asks before leaving only while some registered part is dirty", async () => {
    const listeners: Array<(event: Event) => void> = [];
    vi.stubGlobal("window", { addEventListener: (_: string, fn: (event: Event) => void) => listeners.push(fn) });
    const { registerUnsaved, hasUnsavedWork } = await import("../../app/unsaved-work");

    let dirty = false;
    const unregister = registerUnsaved("editor", () => dirty);
    registerUnsaved("broken", () => {
      throw new Error("a broken check is treated as clean");
    });
    expect(listeners).toHaveLength(1);

    const leave = () => {
      const event = { preventDefault: vi.fn(), returnValue: undefined as unknown } as unknown as BeforeUnloadEvent;
      listeners[0]?.(event);
      return event;
    };
    expect(hasUnsavedWork()).toBe(false);
    expect(leave().preventDefault).not.toHaveBeenCalled();

    dirty = true;
    expect(hasUnsavedWork()).toBe(true);
    expect(leave().preventDefault).toHaveBeenCalled();

    unregister();
    expect(hasUnsavedWork()).toBe(false);
  });
});
