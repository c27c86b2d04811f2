// The QA page's tool interaction samples (UI-12): each file change's card appears about 1.8 s
// after "Run sample" (not before), is approved or rejected in memory, and the five file-change
// samples (write, replace, mkdir, move, trash) are all there. Timers are Vitest's fake clock, so
// nothing here waits.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, within } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import { SAMPLE_DELAY_MS, SAMPLES, ToolSample } from "./QaToolSamples";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const show = (id: string) => {
  const sample = SAMPLES.find((s) => s.id === id)!;
  const { container } = render(
    <I18n.Provider value={translator("en")}>
      <ToolSample sample={sample} />
    </I18n.Provider>,
  );
  return within(container.querySelector<HTMLElement>(`[data-sample="${id}"]`)!);
};

describe("QA tool interaction samples", () => {
  it("holds a sample of each file change (replace twice: current and stale), a sensitive read, an MCP call and a skill script", () => {
    expect(SAMPLES.map((s) => s.tool).sort()).toEqual(["files_mkdir", "files_move", "files_read", "files_replace", "files_replace", "files_trash", "files_write", "skills_run_script", "weather__forecast"]);
  });

  for (const [id, decision, outcome] of [
    ["replace", "Approve", "approved"],
    ["mkdir", "Approve", "approved"],
    ["move", "Reject", "rejected"],
    ["trash", "Reject", "rejected"],
    ["write", "Approve", "approved"],
  ] as const) {
    it(`shows the ${id} card about ${SAMPLE_DELAY_MS} ms after the run starts, and it is ${outcome} in memory`, async () => {
      expect(SAMPLE_DELAY_MS).toBe(1800);
      const s = show(id);
      fireEvent.click(s.getByRole("button", { name: "Run sample (in memory)" }));
      expect(s.getByText("preparing…")).toBeTruthy();
      expect(s.getByRole("button", { name: "Run sample (in memory)" }).hasAttribute("disabled")).toBe(true);
      await act(async () => vi.advanceTimersByTime(SAMPLE_DELAY_MS - 1));
      expect(s.queryByRole("group")).toBeNull();
      await act(async () => vi.advanceTimersByTime(1));
      const card = s.getByRole("group");
      expect(s.queryByText("preparing…")).toBeNull();
      // A file change's card says what APPR-07 asks, here too.
      expect(within(card).getByText(/^Approve only if no untrusted program can change this folder/)).toBeTruthy();
      await act(async () => fireEvent.click(within(card).getByRole("button", { name: decision })));
      expect(s.getByText(`memory state: ${outcome}`)).toBeTruthy();
      expect(within(card).queryByRole("button", { name: /Approve|Reject/ })).toBeNull();
      // It can be run again, and is asked again.
      fireEvent.click(s.getByRole("button", { name: "Run sample (in memory)" }));
      expect(s.queryByText(/memory state/)).toBeNull();
      await act(async () => vi.advanceTimersByTime(SAMPLE_DELAY_MS));
      expect(within(s.getByRole("group")).getByRole("button", { name: "Approve" })).toBeTruthy();
    });
  }
});
