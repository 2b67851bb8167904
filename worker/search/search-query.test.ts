import { describe, expect, it } from "vitest";
import { checkArgs, fileIndexArgs, parseSearchQuery, ripgrepArgs } from "./search-query";

const parse = (query: string) => parseSearchQuery(new URLSearchParams(query));

describe("search queries", () => {
  it("reads every option, with defaults", () => {
    expect(parse("q=needle")).toEqual({
      q: "needle",
      regex: false,
      matchCase: false,
      wholeWord: false,
      include: [],
      exclude: [],
      includeIgnored: false,
      maxResults: 2000,
    });
    expect(parse("q=a.*b&regex=1&case=1&word=1&include=src,*.ts&include=lib&exclude=*.md&ignored=1&max=10")).toEqual({
      q: "a.*b",
      regex: true,
      matchCase: true,
      wholeWord: true,
      include: ["src", "*.ts", "lib"],
      exclude: ["*.md"],
      includeIgnored: true,
      maxResults: 10,
    });
  });

  it("refuses what it cannot run, with the way to fix it", () => {
    expect(() => parse("")).toThrow(/q \(the text to find\) is missing/);
    expect(() => parse(`q=${"x".repeat(2001)}`)).toThrow(/longer than 2000/);
    expect(() => parse("q=a&max=0")).toThrow(/max must be a whole number from 1 to 20000/);
    expect(() => parse("q=a&max=20001")).toThrow(/max must be/);
    expect(() => parse("q=a&regex=yes")).toThrow(/regex must be 1 or 0/);
    expect(() => parse("q=a&include=!src")).toThrow(/without "!"/);
    expect(() => parse("q=a")).not.toThrow();
    expect(() => parse("q=")).toThrow(expect.objectContaining({ code: "INVALID_SEARCH" }));
  });

  it("builds ripgrep's argv: literal unless regex, case, words, globs, and the ignore rules last", () => {
    expect(ripgrepArgs(parse("q=-x"))).toEqual([
      "rg",
      "--json",
      "--line-buffered",
      "--hidden",
      "--no-require-git",
      "--no-config",
      "--no-messages",
      "--ignore-case",
      "--fixed-strings",
      "--glob",
      "!.git",
      "--glob",
      "!node_modules",
      "--regexp",
      "-x",
      "--",
      ".",
    ]);
    const args = ripgrepArgs(parse("q=a(b&regex=1&case=1&word=1&include=src/&exclude=*.md&ignored=1"));
    expect(args).toContain("--case-sensitive");
    expect(args).toContain("--word-regexp");
    expect(args).toContain("--no-ignore");
    expect(args).not.toContain("--fixed-strings");
    expect(args).not.toContain("!node_modules");
    expect(args.join(" ")).toContain("--glob src/ --glob src/** --glob !*.md --glob !.git --regexp a(b -- .");
  });

  it("checks a query by the same argv over /dev/null", () => {
    const query = parse("q=a(&regex=1&include=src");
    expect(checkArgs(query)).toEqual([...ripgrepArgs(query).slice(0, -1), "/dev/null"]);
    expect(checkArgs(query).at(-2)).toBe("--");
  });

  it("indexes files by the same rules", () => {
    expect(fileIndexArgs()).toEqual([
      "rg",
      "--files",
      "--null",
      "--hidden",
      "--no-require-git",
      "--no-config",
      "--no-messages",
      "--glob",
      "!.git",
      "--glob",
      "!node_modules",
      "--",
      ".",
    ]);
  });
});
