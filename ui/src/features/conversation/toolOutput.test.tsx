// The live output log of a running call (npm's output shown to the person, capped,
// progress included): the stream's `tool_output` events of the shown session only, under
// their call, the latest MAX_LOG_LINES kept, held-back counts worded, silent to screen readers
// except for the step names, and gone when another session is shown.
import { afterEach, describe, expect, it } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { I18n, translator } from "../../i18n";
import { shortCallId } from "./RunView";
import { CallOutput, MAX_LOG_LINES, StepAnnouncer, ToolOutputs, useToolOutput, type ToolOutputEvent } from "./ToolOutput";

afterEach(cleanup);

const ev = (over: Partial<ToolOutputEvent>): ToolOutputEvent => ({
  sessionId: "s1",
  runId: "r1",
  callId: "c1",
  kind: "output",
  step: "npm ci",
  line: "",
  ...over,
});

/** The App's wiring in small: the hook, its logs under two calls, the announcer. */
function Harness({ session, expose, lang = "en" }: { session: string | null; expose: (f: (name: string, data: unknown) => void) => void; lang?: "en" | "zh" }) {
  const out = useToolOutput(session);
  expose(out.onLive);
  return (
    <I18n.Provider value={translator(lang)}>
      <ToolOutputs.Provider value={out.logs}>
        <div data-testid="call-c1">
          <CallOutput callId="c1" />
        </div>
        <div data-testid="call-c2">
          <CallOutput callId="c2" />
        </div>
      </ToolOutputs.Provider>
      <StepAnnouncer step={out.step} />
    </I18n.Provider>
  );
}

function mount(session: string | null = "s1", lang: "en" | "zh" = "en") {
  let onLive: (name: string, data: unknown) => void = () => {};
  const expose = (f: typeof onLive) => {
    onLive = f;
  };
  const view = render(<Harness session={session} expose={expose} lang={lang} />);
  const send = (name: string, data: unknown) => act(() => onLive(name, data));
  const rerender = (s: string | null) => view.rerender(<Harness session={s} expose={expose} lang={lang} />);
  return { send, rerender };
}

const lines = (call: string) => Array.from(screen.getByTestId(`call-${call}`).querySelectorAll("[data-kind]")).map((e) => e.textContent);

describe("the live output of a running call", () => {
  it("shows steps and npm's lines under their call, silently, and announces only the steps", () => {
    const { send } = mount();
    expect(screen.getByTestId("call-c1").textContent).toBe("");
    // The announcer is there before the first step, so that step is read too.
    expect(screen.getByTestId("step-announcer").getAttribute("aria-live")).toBe("polite");
    send("tool_output", ev({ kind: "step", step: "npm install --package-lock-only", line: "npm install --package-lock-only" }));
    send("tool_output", ev({ step: "npm install --package-lock-only", line: "npm http fetch GET 200 http://127.0.0.1:1/wisp-demo-mcp 5ms" }));
    send("tool_output", ev({ callId: "c2", kind: "step", step: "npm ci", line: "npm ci" }));
    expect(lines("c1")).toEqual(["▸ npm install --package-lock-only", "npm http fetch GET 200 http://127.0.0.1:1/wisp-demo-mcp 5ms"]);
    expect(lines("c2")).toEqual(["▸ npm ci"]);
    const log = screen.getByTestId("call-c1").querySelector(".tool-output")!;
    expect(log.getAttribute("aria-live")).toBe("off");
    expect(log.getAttribute("role")).toBe("region");
    expect(log.getAttribute("aria-label")).toBe("Live output");
    expect(log.classList.contains("mono")).toBe(true);
    expect(screen.getByTestId("step-announcer").textContent).toBe("Now running: npm ci");
    // An output line is never announced.
    send("tool_output", ev({ line: "added 1 package in 300ms" }));
    expect(screen.getByTestId("step-announcer").textContent).toBe("Now running: npm ci");
  });

  it("ignores other sessions, other event names and malformed data", () => {
    const { send } = mount();
    send("tool_output", ev({ sessionId: "s2", line: "theirs" }));
    send("tabs", { sessionId: "s1" });
    send("tool_output", { sessionId: "s1", callId: "c1", kind: "shout", line: "bad kind" });
    send("tool_output", "not an object");
    expect(screen.getByTestId("call-c1").textContent).toBe("");
    expect(screen.getByTestId("step-announcer").textContent).toBe("");
  });

  it("keeps the latest MAX_LOG_LINES lines and says how many earlier ones it dropped", () => {
    const { send } = mount();
    for (let i = 0; i < MAX_LOG_LINES; i++) send("tool_output", ev({ line: `l${i}` }));
    // At the cap: every line, nothing said dropped.
    expect(lines("c1")).toHaveLength(MAX_LOG_LINES);
    expect(screen.queryByText(/not kept here/)).toBeNull();
    for (let i = MAX_LOG_LINES; i < MAX_LOG_LINES + 50; i++) send("tool_output", ev({ line: `l${i}` }));
    const shown = lines("c1");
    expect(shown).toHaveLength(MAX_LOG_LINES);
    expect(shown[0]).toBe("l50");
    expect(shown[MAX_LOG_LINES - 1]).toBe(`l${MAX_LOG_LINES + 49}`);
    expect(screen.getByText("50 earlier lines not kept here")).toBeTruthy();
  });

  it("words the Host's held-back count in the person's language", () => {
    const { send } = mount("s1", "zh");
    send("tool_output", ev({ kind: "held_back", heldBack: 120 }));
    send("tool_output", ev({ kind: "step", step: "bin check", line: "bin check" }));
    expect(lines("c1")).toEqual(["另有 120 行未显示（结果中保留最后几行）", "▸ bin check"]);
    expect(screen.getByTestId("step-announcer").textContent).toBe("正在进行：bin check");
    expect(screen.getByRole("region", { name: "实时输出" })).toBeTruthy();
  });

  it("says one held-back line in the singular", () => {
    const { send } = mount();
    send("tool_output", ev({ kind: "held_back", heldBack: 1 }));
    expect(lines("c1")).toEqual(["1 more line held back (the result keeps the last ones)"]);
  });

  it("starts empty for another session (the lines are not stored)", () => {
    const { send, rerender } = mount();
    send("tool_output", ev({ kind: "step", step: "npm ci", line: "npm ci" }));
    expect(lines("c1")).toEqual(["▸ npm ci"]);
    rerender("s2");
    expect(screen.getByTestId("call-c1").textContent).toBe("");
    expect(screen.getByTestId("step-announcer").textContent).toBe("");
    // The old session's late lines do not show in the new one.
    send("tool_output", ev({ line: "late" }));
    expect(screen.getByTestId("call-c1").textContent).toBe("");
  });
});

describe("a call row's id", () => {
  it("shows the round and position of a Host call id, and any other id whole", () => {
    expect(shortCallId("r_0123abcd-s2-c1")).toBe("s2-c1");
    expect(shortCallId("r_0123abcd-s12-c10")).toBe("s12-c10");
    expect(shortCallId("call_0")).toBe("call_0");
    expect(shortCallId("x-s1-c")).toBe("x-s1-c");
  });
});
