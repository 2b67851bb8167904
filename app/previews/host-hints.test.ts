import { describe, expect, it } from "vitest";
import { hostHint } from "./host-hints";

const deployed = "https://3000-ada-tok123.example-previews.com/";

describe("what the preview pane says to add for a dev server's host check (issue 43)", () => {
  it("names Next.js's allowedDevOrigins with the preview domain", () => {
    for (const process of [
      "next-server (v16.2.3)",
      "node /workspace/app/node_modules/next/dist/bin/next dev",
      "next dev",
    ]) {
      expect(hostHint(process, deployed), process).toEqual({
        framework: "Next.js",
        file: "next.config",
        add: 'allowedDevOrigins: ["*.example-previews.com"]',
      });
    }
  });

  it("has nothing to say for Vite-based servers, plain servers, or previews under localhost", () => {
    for (const process of [
      "node /workspace/app/node_modules/.bin/vite",
      "ng serve",
      "python3 -m http.server",
      "node server.js",
      "node /root/.npm/_npx/1/node_modules/.bin/serve",
      "nextcloud-sync",
    ]) {
      expect(hostHint(process, deployed), process).toBeUndefined();
    }
    expect(hostHint("next-server (v16.2.3)", "http://3000-ada-tok123.localhost:5173/")).toBeUndefined();
    expect(hostHint(undefined, deployed)).toBeUndefined();
    expect(hostHint("next dev", undefined)).toBeUndefined();
  });
});
