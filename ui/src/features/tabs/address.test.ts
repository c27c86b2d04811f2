import { describe, expect, it } from "vitest";
import { addressOf } from "./address";

describe("the address box reads addresses as a browser does", () => {
  it("keeps an address with its scheme as typed", () => {
    expect(addressOf(" https://example.com/a?b#c ")).toEqual({ url: "https://example.com/a?b#c", added: null });
    expect(addressOf("http://127.0.0.1:43299/site/about")).toEqual({ url: "http://127.0.0.1:43299/site/about", added: null });
  });

  it("adds http:// for this computer and bare local names", () => {
    for (const typed of ["127.0.0.1:43299/site/about", "localhost:3000", "localhost", "app.localhost/x", "[::1]:8080/", "intranet/wiki", "nas:5000"]) {
      expect(addressOf(typed)).toEqual({ url: `http://${typed}`, added: "http://" });
    }
  });

  it("adds https:// for everything else", () => {
    for (const typed of ["example.com", "example.com/path?q=1", "docs.rs/serde", "10.0.0.5:8080", "user@example.com/x"]) {
      expect(addressOf(typed)).toEqual({ url: `https://${typed}`, added: "https://" });
    }
  });

  it("refuses what is no web address, with the reason", () => {
    expect(addressOf("   ")).toEqual({ error: "empty" });
    for (const typed of ["two words", "/etc/passwd", "ftp://example.com/", "javascript:alert(1)", "file:///etc/passwd", "mailto:a@b.c", "http://", "https://exa mple.com"]) {
      expect(addressOf(typed)).toEqual({ error: "invalid" });
    }
  });
});
