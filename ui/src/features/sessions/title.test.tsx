import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import type { Session } from "../../types";
import { SessionList } from "./SessionList";

afterEach(cleanup);

const session = (id: string, title: string): Session => ({
  id,
  title,
  projectId: null,
  root: null,
  createdAt: 0,
  activeRunId: null,
  lastEventSeq: 0,
  pinned: false,
  usage: { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cacheHitTokens: 0, cacheMissTokens: 0, estimatedCost: null },
});

const list = (lang: "en" | "zh") =>
  render(
    <I18n.Provider value={translator(lang)}>
      <SessionList
        sessions={[session("s1", "New session"), session("s2", "Refactor the parser")]}
        projects={[]}
        newIn={null}
        currentId="s2"
        waiting={new Set()}
        onSelect={() => {}}
        onNew={() => {}}
        onRename={() => {}}
        onDelete={() => {}}
        onPin={() => {}}
        search={{ query: "", setQuery: () => {}, results: null, error: null }}
        onOpenHit={() => {}}
      />
    </I18n.Provider>,
  );

describe("session titles", () => {
  it("show the Host's default title in the person's language and any other title as it is", () => {
    list("zh");
    const titles = [...document.querySelectorAll(".item-title")].map((e) => e.textContent);
    expect(titles).toEqual([translator("zh")("newSession"), "Refactor the parser"]);
    expect(titles[0]).not.toBe("New session");
    cleanup();
    list("en");
    expect([...document.querySelectorAll(".item-title")].map((e) => e.textContent)).toEqual(["New session", "Refactor the parser"]);
  });
});
