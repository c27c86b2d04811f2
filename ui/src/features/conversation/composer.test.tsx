// The message box: the first message of a first visit makes its session and then the run, a
// session that cannot be made keeps the message in the box, and ↑ in an empty box brings back
// the last message (only then).
import { afterEach, describe, expect, it } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import type { Api } from "../../api";
import { Composer, useComposer } from "./Composer";

afterEach(cleanup);

function Box({ api, sessionId, newSession, last, log }: { api: Api; sessionId: string | null; newSession: () => Promise<string | null>; last?: string; log: string[] }) {
  const composer = useComposer({ api, sessionId, newSession, busy: false, onStarted: (id) => log.push(`started ${id}`), report: (e) => log.push(`error ${String(e)}`) });
  return <Composer composer={composer} running={false} onStop={() => {}} last={last} />;
}

function fakeApi(log: string[]): Api {
  return { startRun: async (sid: string, text: string) => (log.push(`run ${sid} ${text}`), { runId: "r1" }) } as unknown as Api;
}

const show = (props: Omit<Parameters<typeof Box>[0], "api"> & { api?: Api }) =>
  render(
    <I18n.Provider value={translator("en")}>
      <Box api={props.api ?? fakeApi(props.log)} {...props} />
    </I18n.Provider>,
  );

describe("the message box", () => {
  it("has the focus at start, and a first message without a session makes one, then the run", async () => {
    const log: string[] = [];
    show({ sessionId: null, newSession: async () => (log.push("session"), "s_new"), log });
    const box = screen.getByRole("textbox", { name: /Message/ });
    expect(document.activeElement).toBe(box);
    fireEvent.change(box, { target: { value: "hello" } });
    await act(async () => fireEvent.keyDown(box, { key: "Enter" }));
    expect(log).toEqual(["session", "run s_new hello", "started r1"]);
    expect((box as HTMLTextAreaElement).value).toBe("");
  });

  it("keeps the message when no session could be made, and reports nothing more", async () => {
    const log: string[] = [];
    show({ sessionId: null, newSession: async () => null, log });
    const box = screen.getByRole("textbox", { name: /Message/ });
    fireEvent.change(box, { target: { value: "hello" } });
    await act(async () => fireEvent.keyDown(box, { key: "Enter" }));
    expect(log).toEqual([]);
    expect((box as HTMLTextAreaElement).value).toBe("hello");
  });

  it("brings back the last message on ↑ only while the box is empty", () => {
    const log: string[] = [];
    show({ sessionId: "s1", newSession: async () => null, last: "the last one", log });
    const box = screen.getByRole("textbox", { name: /Message/ }) as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: "draft" } });
    fireEvent.keyDown(box, { key: "ArrowUp" });
    expect(box.value).toBe("draft");
    fireEvent.change(box, { target: { value: "" } });
    fireEvent.keyDown(box, { key: "ArrowUp", shiftKey: true });
    expect(box.value).toBe("");
    fireEvent.keyDown(box, { key: "ArrowUp" });
    expect(box.value).toBe("the last one");
  });
});
