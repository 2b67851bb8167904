import { describe, expect, it } from "vitest";
import { previewDomainProblem, sharedSite } from "./preview-domain";

describe("PREVIEW_DOMAIN against the IDE's hostname", () => {
  it("refuses a preview domain on the IDE's own site", () => {
    expect(sharedSite("ide.example.com", "previews.example.com")).toBe("example.com");
    expect(sharedSite("example.com", "example.com")).toBe("example.com");
    expect(sharedSite("ide.example.co.uk", "p.example.co.uk")).toBe("example.co.uk");
    expect(previewDomainProblem("ide.example.com", "previews.example.com")).toMatch(/same site \(example\.com\)/);
  });

  it("accepts another registrable domain, public suffixes included", () => {
    expect(sharedSite("ide.example.com", "example-previews.com")).toBeUndefined();
    // co.uk and github.io are public suffixes: these are different sites.
    expect(sharedSite("ide.one.co.uk", "previews.two.co.uk")).toBeUndefined();
    expect(sharedSite("alice.github.io", "bob.github.io")).toBeUndefined();
    // workers.dev is in the list's private section, as browsers treat it.
    expect(sharedSite("ide.alice.workers.dev", "previews.bob.workers.dev")).toBeUndefined();
    expect(previewDomainProblem("ide.example.com", "example-previews.com")).toBeUndefined();
  });

  it("has nothing to say about hosts with no site, such as localhost under vite dev", () => {
    expect(sharedSite("localhost:5173", "localhost:5173")).toBeUndefined();
    expect(sharedSite("127.0.0.1:5173", "127.0.0.1:5173")).toBeUndefined();
  });
});
