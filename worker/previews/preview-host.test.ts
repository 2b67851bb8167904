import { describe, expect, it } from "vitest";
import { previewHostLabel } from "./preview-host";

const dev = { PREVIEW_DOMAIN: "localhost:8787" } as Env;
const prod = { PREVIEW_DOMAIN: "example-previews.com" } as Env;
const label = (url: string, env: Env) => previewHostLabel(new Request(url), env);

describe("previewHostLabel", () => {
  it("finds the label of a preview hostname, in any case", () => {
    expect(label("http://5173-ada-tok.localhost:8787/src/App.tsx", dev)).toBe("5173-ada-tok");
    expect(label("https://5173-ada-tok.Example-Previews.com/", prod)).toBe("5173-ada-tok");
  });

  it("leaves the app's own hostnames alone", () => {
    expect(label("http://localhost:8787/api/health", dev)).toBeUndefined();
    expect(label("http://5173-ada-tok.localhost:9999/", dev)).toBeUndefined();
    expect(label("https://ide.example.com/", prod)).toBeUndefined();
    expect(label("https://evil-example-previews.com/", prod)).toBeUndefined();
  });

  it("hands nested names to the label parser (which 404s them)", () => {
    expect(label("https://a.5173-ada-tok.example-previews.com/", prod)).toBe("a.5173-ada-tok");
  });
});
