import { describe, expect, it } from "vitest";
import { parseEvent } from "../../scripts/lib/image-ledger.mjs";

describe("the image ledger's reading of docker events", () => {
  it("reads a commit: the container's name and the snapshot image it made", () => {
    const line = JSON.stringify({
      status: "commit",
      Type: "container",
      Action: "commit",
      Actor: {
        ID: "74c7df69",
        Attributes: {
          image: "cloudflare-dev/workspace-sandbox-dcf8299fb9a1:734cc261",
          imageRef: "workerd-container-snap-51a11db6-58c0-48ba-a742-055d392c8bc7",
          name: "workerd-cloud-ide-test-31922b-Workspace-dfed927c",
        },
      },
    });
    expect(parseEvent(line)).toEqual({
      action: "commit",
      name: "workerd-cloud-ide-test-31922b-Workspace-dfed927c",
      image: "cloudflare-dev/workspace-sandbox-dcf8299fb9a1:734cc261",
      imageRef: "workerd-container-snap-51a11db6-58c0-48ba-a742-055d392c8bc7",
    });
  });

  it("ignores lines that are not container events", () => {
    expect(parseEvent("not json")).toBeUndefined();
    expect(parseEvent(JSON.stringify({ Action: "create", Actor: { Attributes: {} } }))).toBeUndefined();
  });
});
