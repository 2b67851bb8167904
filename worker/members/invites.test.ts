import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { EXPIRED_KEPT_MS, newInvite, pruned, summaries, usableInvite } from "./invites";

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("INVITE_UNUSABLE");
  return (error as AppError).message;
}

describe("an invite link", () => {
  it("admits by its whole token only, and keeps no secret but its hash", async () => {
    const { record, token } = await newInvite("viewer", 3600, 1, 1_000);
    const invites = { [record.id]: record };
    expect(token.startsWith(`${record.id}.`)).toBe(true);
    expect(JSON.stringify(record)).not.toContain(token.split(".")[1]);
    expect(await usableInvite(invites, token, 2_000)).toBe(record);
    expect(await refusal(usableInvite(invites, `${record.id}.wrong`, 2_000))).toMatch(/not valid/);
    expect(await refusal(usableInvite(invites, record.id, 2_000))).toMatch(/not valid/);
    expect(await refusal(usableInvite(invites, `${token}.more`, 2_000))).toMatch(/not valid/);
    expect(await refusal(usableInvite({}, token, 2_000))).toMatch(/revoked/);
    expect(await refusal(usableInvite(invites, 42, 2_000))).toMatch(/not valid/);
  });

  it("signs nobody in once expired or used up, and says which", async () => {
    const { record, token } = await newInvite("editor", 60, 2, 0);
    expect(await refusal(usableInvite({ [record.id]: record }, token, 60_000))).toMatch(/expired at/);
    const usedUp = { ...record, used: 2 };
    expect(await refusal(usableInvite({ [record.id]: usedUp }, token, 1_000))).toMatch(/used as many times/);
    const unlimited = { ...record, uses: null, used: 500 };
    expect(await usableInvite({ [record.id]: unlimited }, token, 1_000)).toBe(unlimited);
  });

  it("is listed while it lives, newest first, and forgotten a while after it expired", async () => {
    const old = (await newInvite("viewer", 60, null, 0)).record;
    const fresh = (await newInvite("editor", 3600, 3, 10_000)).record;
    const invites = { [old.id]: old, [fresh.id]: fresh };
    expect(summaries(invites, 20_000).map((i) => i.id)).toEqual([fresh.id, old.id]);
    expect(summaries(invites, 61_000).map((i) => [i.id, i.uses, i.used])).toEqual([[fresh.id, 3, 0]]);
    expect(Object.keys(pruned(invites, 61_000))).toHaveLength(2);
    expect(Object.keys(pruned(invites, 60_000 + EXPIRED_KEPT_MS + 1))).toEqual([fresh.id]);
  });
});
