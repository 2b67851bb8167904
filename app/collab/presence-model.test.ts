import { describe, expect, it } from "vitest";
import { MAX_AWARENESS_STATE_BYTES, MAX_PRESENCE_FILES } from "../../protocol/collab";
import {
  changesNothing,
  filesOpenBy,
  foldersOpenBy,
  initialsOf,
  namesOf,
  peopleIn,
  publishedFiles,
  sameGroups,
  terminalWatchers,
} from "./presence-model";

const ada = { id: "guest:ada", name: "Ada Lovelace", color: "#e06c75", colorLight: "#e06c7533" };
const grace = { id: "guest:grace", name: "Grace Hopper", color: "#61afef", colorLight: "#61afef33" };
const me = { id: "owner", name: "owner", color: "#98c379", colorLight: "#98c37933" };

describe("peopleIn", () => {
  it("merges one person's tabs: every open file and shown terminal, the file and line of the tab they last moved in", () => {
    const states = new Map<number, unknown>([
      [1, { user: ada, files: ["a.ts", "b.ts"], active: "a.ts", line: 10, terminal: "main", movedAt: 100 }],
      [2, { user: ada, files: ["c.ts"], active: "c.ts", line: 42, terminal: "term-2", movedAt: 200 }],
      [3, { user: ada, files: ["b.ts"], active: "b.ts", line: 7, movedAt: 150 }],
    ]);
    const people = peopleIn(states, { clientId: 99, userId: "owner" });
    expect(people).toEqual([
      {
        id: "guest:ada",
        name: "Ada Lovelace",
        color: "#e06c75",
        initials: "AL",
        files: ["a.ts", "b.ts", "c.ts"],
        active: "c.ts",
        line: 42,
        terminals: ["main", "term-2"],
      },
    ]);
  });

  it("leaves out this tab and the user's own other tabs, and sorts the rest by name", () => {
    const states = new Map<number, unknown>([
      [1, { user: me, files: ["mine.ts"], active: "mine.ts" }],
      [2, { user: me, files: ["other-tab.ts"], active: "other-tab.ts" }],
      [3, { user: grace, files: [], active: null }],
      [4, { user: ada, files: [], active: null }],
    ]);
    expect(peopleIn(states, { clientId: 1, userId: "owner" }).map((person) => person.name)).toEqual([
      "Ada Lovelace",
      "Grace Hopper",
    ]);
    // Without a user id, only this tab is left out.
    expect(peopleIn(states, { clientId: 1 }).map((person) => person.id)).toEqual(["guest:ada", "guest:grace", "owner"]);
  });

  it("skips states without a stamped user and reads malformed fields as absent", () => {
    const states = new Map<number, unknown>([
      [1, { files: ["x.ts"], active: "x.ts" }],
      [2, null],
      [3, "nonsense"],
      [4, { user: grace, files: "not a list", active: 7, line: -3, terminal: { name: "main" } }],
      [5, { user: ada, files: ["ok.ts", 12, "", null], active: "ok.ts", line: 2.5 }],
    ]);
    const people = peopleIn(states, { clientId: 0 });
    expect(people.map((person) => person.id)).toEqual(["guest:ada", "guest:grace"]);
    const [adaSeen, graceSeen] = people;
    expect(adaSeen).toMatchObject({ files: ["ok.ts"], active: "ok.ts", line: undefined });
    expect(graceSeen).toMatchObject({ files: [], active: undefined, line: undefined, terminals: [] });
  });

  it("counts a tab's active file as open, and gives no line without an active file", () => {
    const states = new Map<number, unknown>([[1, { user: ada, active: "only-active.ts", line: 3 }]]);
    expect(peopleIn(states, { clientId: 0 })[0]).toMatchObject({ files: ["only-active.ts"], line: 3 });
    const noFile = new Map<number, unknown>([[1, { user: ada, files: ["a.ts"], active: null, line: 3 }]]);
    expect(peopleIn(noFile, { clientId: 0 })[0]).toMatchObject({ active: undefined, line: undefined });
  });
});

describe("who is where", () => {
  const people = peopleIn(
    new Map<number, unknown>([
      [1, { user: ada, files: ["src/app.ts", "README.md"], active: "src/app.ts", terminal: "main" }],
      [2, { user: grace, files: ["src/app.ts"], active: "src/app.ts", terminal: "term-2" }],
      [3, { user: grace, files: [], active: null, terminal: "main" }],
    ]),
    { clientId: 0 },
  );

  it("lists who has each file open", () => {
    const files = filesOpenBy(people);
    expect(files.get("src/app.ts")?.map((person) => person.name)).toEqual(["Ada Lovelace", "Grace Hopper"]);
    expect(files.get("README.md")?.map((person) => person.name)).toEqual(["Ada Lovelace"]);
    expect(files.has("other.ts")).toBe(false);
  });

  it("lists who has a file open under each folder, a person once", () => {
    const folders = foldersOpenBy(people);
    expect(folders.get("src")?.map((person) => person.name)).toEqual(["Ada Lovelace", "Grace Hopper"]);
    expect([...folders.keys()]).toEqual(["src"]);
    const deep = foldersOpenBy(
      peopleIn(new Map<number, unknown>([[1, { user: ada, files: ["a/b/c.ts", "a/b/d.ts", "a/e.ts"] }]]), {
        clientId: 0,
      }),
    );
    expect([...deep.keys()].sort()).toEqual(["a", "a/b"]);
    expect(deep.get("a")?.length).toBe(1);
  });

  it("tells a grouping that says the same from one that changed", () => {
    const again = peopleIn(
      new Map<number, unknown>([
        [1, { user: ada, files: ["src/app.ts", "README.md"], active: "README.md", line: 90, terminal: "main" }],
        [2, { user: grace, files: ["src/app.ts"], active: "src/app.ts", terminal: "term-2" }],
        [3, { user: grace, files: [], active: null, terminal: "main" }],
      ]),
      { clientId: 0 },
    );
    // Ada moved within her files: nobody opened or closed one.
    expect(sameGroups(filesOpenBy(people), filesOpenBy(again))).toBe(true);
    expect(sameGroups(terminalWatchers(people), terminalWatchers(again))).toBe(true);
    const closed = peopleIn(new Map<number, unknown>([[1, { user: ada, files: ["src/app.ts"] }]]), { clientId: 0 });
    expect(sameGroups(filesOpenBy(people), filesOpenBy(closed))).toBe(false);
    expect(sameGroups(filesOpenBy(closed), new Map())).toBe(false);
  });

  it("lists who shows each terminal, a person once", () => {
    const terminals = terminalWatchers(people);
    expect(terminals.get("main")?.map((person) => person.name)).toEqual(["Ada Lovelace", "Grace Hopper"]);
    expect(terminals.get("term-2")?.map((person) => person.name)).toEqual(["Grace Hopper"]);
  });
});

describe("names", () => {
  it("makes initials from a name, an email's local part, or one word", () => {
    expect(initialsOf("Grace Hopper")).toBe("GH");
    expect(initialsOf("ada.lovelace@example.com")).toBe("AL");
    expect(initialsOf("owner")).toBe("O");
    expect(initialsOf("  émile   zola  ")).toBe("ÉZ");
    expect(initialsOf("Jean-Luc Picard")).toBe("JP");
    expect(initialsOf("   ")).toBe("?");
  });

  it("joins names for a tooltip", () => {
    expect(namesOf([])).toBe("");
    expect(namesOf([{ name: "Ada" }])).toBe("Ada");
    expect(namesOf([{ name: "Ada" }, { name: "Grace" }])).toBe("Ada and Grace");
    expect(namesOf([{ name: "Ada" }, { name: "Grace" }, { name: "Linus" }])).toBe("Ada, Grace and Linus");
  });
});

describe("publishedFiles", () => {
  it("publishes every open file of a real page, in tab order", () => {
    expect(publishedFiles(["src/a.ts", "README.md"])).toEqual(["src/a.ts", "README.md"]);
  });

  it("cuts a page with very many or very long paths to what the server takes in one state", () => {
    const many = Array.from({ length: 500 }, (_, i) => `src/file-${i}.ts`);
    expect(publishedFiles(many)).toEqual(many.slice(0, MAX_PRESENCE_FILES));
    const long = Array.from({ length: 50 }, (_, i) => `${"deep/".repeat(800)}${i}\n"quoted".ts`);
    const published = publishedFiles(long);
    expect(published.length).toBeGreaterThan(0);
    expect(published).toEqual(long.slice(0, published.length));
    expect(JSON.stringify({ files: published }).length).toBeLessThanOrEqual(MAX_AWARENESS_STATE_BYTES / 2 + 20);
  });
});

describe("changesNothing", () => {
  it("finds a change that says only what the published state says (it is not sent again)", () => {
    const state = { files: ["a.ts", "b.ts"], active: "a.ts", line: 3, terminal: null };
    expect(changesNothing(state, { files: ["a.ts", "b.ts"], active: "a.ts", line: 3 })).toBe(true);
    expect(changesNothing(state, { terminal: null })).toBe(true);
    expect(changesNothing(state, {})).toBe(true);
    expect(changesNothing(state, { files: ["a.ts"], active: "a.ts", line: 3 })).toBe(false);
    expect(changesNothing(state, { files: ["b.ts", "a.ts"] })).toBe(false);
    expect(changesNothing(state, { line: 4 })).toBe(false);
    expect(changesNothing(state, { line: undefined })).toBe(false);
    expect(changesNothing(state, { terminal: "main" })).toBe(false);
  });
});
