import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import { CONTEXT_LINES, Diff } from "./Diff";

afterEach(cleanup);

const file = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const shown = () => [...document.querySelectorAll(".diff > div")].map((d) => d.textContent);

describe("the diff of a change", () => {
  it("shows a few unchanged lines around each change and folds the rest into buttons that open them", () => {
    const before = file(100);
    const after = before.replace("line 50\n", "line fifty\n");
    render(
      <I18n.Provider value={translator("en")}>
        <Diff before={before} after={after} />
      </I18n.Provider>,
    );
    expect(CONTEXT_LINES).toBe(3);
    expect(shown()).toEqual(["  line 47", "  line 48", "  line 49", "- line 50", "+ line fifty", "  line 51", "  line 52", "  line 53"]);
    const gaps = screen.getAllByRole("button");
    expect(gaps.map((b) => b.textContent)).toEqual(["⋯ 46 unchanged lines (show)", "⋯ 47 unchanged lines (show)"]);
    fireEvent.click(gaps[0]!);
    expect(shown()[0]).toBe("  line 1");
    expect(shown()).toHaveLength(46 + 8);
    expect(screen.getAllByRole("button")).toHaveLength(1);
  });

  it("keeps a single unchanged line between changes instead of a button for it, and a new file whole", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
    const after = "A\nb\nc\nd\ne\nf\ng\nh\nI\n";
    render(
      <I18n.Provider value={translator("zh")}>
        <Diff before={before} after={after} />
      </I18n.Provider>,
    );
    // Lines b..d follow the first change, f..h precede the last: e alone is shown, not folded.
    expect(screen.queryAllByRole("button")).toHaveLength(0);
    expect(shown()).toHaveLength(11);
    cleanup();
    render(
      <I18n.Provider value={translator("zh")}>
        <Diff before={file(40)} after={file(40).replace("line 1\n", "line one\n")} />
      </I18n.Provider>,
    );
    expect(screen.getByRole("button").textContent).toBe("⋯ 36 行未改动（显示）");
  });
});
