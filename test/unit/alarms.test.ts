import { describe, expect, it } from "vitest";
import { AlarmScheduler, type AlarmStorage } from "../../worker/alarms";

/** In-memory stand-in for the few DurableObjectStorage calls the scheduler makes. */
function fakeStorage() {
  const data = new Map<string, unknown>();
  let alarm: number | null = null;
  const storage: AlarmStorage = {
    get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
    put: async (key, value) => void data.set(key, structuredClone(value)),
    getAlarm: async () => alarm,
    setAlarm: async (at) => {
      alarm = at;
    },
    deleteAlarm: async () => {
      alarm = null;
    },
  };
  return { storage, alarm: () => alarm };
}

describe("AlarmScheduler", () => {
  it("arms the one alarm for the earliest task", async () => {
    const { storage, alarm } = fakeStorage();
    const scheduler = new AlarmScheduler(storage);
    await scheduler.schedule("a", 5000);
    await scheduler.schedule("b", 3000);
    expect(alarm()).toBe(3000);
    await scheduler.cancel("b");
    expect(alarm()).toBe(5000);
    await scheduler.cancel("a");
    expect(alarm()).toBeNull();
  });

  it("runs only due tasks, once, and re-arms for what is left", async () => {
    const { storage, alarm } = fakeStorage();
    const scheduler = new AlarmScheduler(storage);
    const ran: string[] = [];
    scheduler.register("due", () => void ran.push("due"));
    scheduler.register("later", () => void ran.push("later"));
    await scheduler.schedule("due", 1000);
    await scheduler.schedule("later", 9000);
    await scheduler.run(2000);
    expect(ran).toEqual(["due"]);
    expect(alarm()).toBe(9000);
    await scheduler.run(2000);
    expect(ran).toEqual(["due"]);
  });

  it("lets a task schedule itself again while it runs", async () => {
    const { storage, alarm } = fakeStorage();
    const scheduler = new AlarmScheduler(storage);
    scheduler.register("tick", () => scheduler.schedule("tick", 7000));
    await scheduler.schedule("tick", 1000);
    await scheduler.run(1000);
    expect(await scheduler.nextRun("tick")).toBe(7000);
    expect(alarm()).toBe(7000);
  });

  it("keeps running other tasks when one throws", async () => {
    const { storage } = fakeStorage();
    const scheduler = new AlarmScheduler(storage);
    const ran: string[] = [];
    scheduler.register("bad", () => {
      throw new Error("boom");
    });
    scheduler.register("good", () => void ran.push("good"));
    await scheduler.schedule("bad", 1);
    await scheduler.schedule("good", 2);
    const errors = console.error;
    console.error = () => {};
    try {
      await scheduler.run(10);
    } finally {
      console.error = errors;
    }
    expect(ran).toEqual(["good"]);
  });

  it("scheduleNoLaterThan only brings a task forward", async () => {
    const { storage } = fakeStorage();
    const scheduler = new AlarmScheduler(storage);
    await scheduler.schedule("t", 5000);
    await scheduler.scheduleNoLaterThan("t", 8000);
    expect(await scheduler.nextRun("t")).toBe(5000);
    await scheduler.scheduleNoLaterThan("t", 2000);
    expect(await scheduler.nextRun("t")).toBe(2000);
  });
});
