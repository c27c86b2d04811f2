import { describe, expect, it } from "vitest";
import { rawMembers, rawString } from "./rawJson";

describe("rawMembers", () => {
  it("keeps every digit, the sign of -0.0, nested values and escapes as written", () => {
    const text = '{"arguments":{"n1":12345678901234567891,"n2":-0.0,"o":{"a":[1,"}"]},"s":"q\\"}\\\\"},"server":"S","v":2}';
    const top = rawMembers(text)!;
    expect(top.map(([k]) => k)).toEqual(["arguments", "server", "v"]);
    const args = rawMembers(top[0]![1])!;
    expect(args).toEqual([
      ["n1", "12345678901234567891"],
      ["n2", "-0.0"],
      ["o", '{"a":[1,"}"]}'],
      ["s", '"q\\"}\\\\"'],
    ]);
    expect(rawString(args[3]![1])).toBe('q"}\\');
    expect(rawString(args[0]![1])).toBeNull();
  });

  it("reads white space between tokens and refuses what is no object", () => {
    expect(rawMembers(' { "a" : true , "b":null }')).toEqual([
      ["a", "true"],
      ["b", "null"],
    ]);
    expect(rawMembers("{}")).toEqual([]);
    for (const bad of ["[1]", '{"a":}', '{"a" 1}', '{"a":"x', "", '{"a":1,}']) expect(rawMembers(bad), bad).toBeNull();
  });
});
