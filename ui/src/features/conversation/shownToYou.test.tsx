// A call's part for the person alone shows under the call, labelled as not sent to the model,
// as plain text (never markup), in both languages; a call without one shows nothing of it.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import { ShownToYou } from "./ShownToYou";

afterEach(cleanup);

function shown(text: string, lang: "en" | "zh" = "en") {
  return render(
    <I18n.Provider value={translator(lang)}>
      <ShownToYou text={text} />
    </I18n.Provider>,
  );
}

describe("ShownToYou", () => {
  it("shows the text as plain text under a label saying the model did not get it", () => {
    shown("<b>only for you</b>");
    const note = screen.getByRole("note", { name: "Shown to you only (not sent to the model)" });
    expect(note.textContent).toContain("<b>only for you</b>");
    expect(note.querySelector("b")).toBeNull();
  });

  it("is labelled in Chinese too", () => {
    shown("只给你看", "zh");
    expect(screen.getByRole("note", { name: "仅向你显示（未发送给模型）" }).textContent).toContain("只给你看");
  });
});
