// The open_webpage approval card (WEB-02, UI-11): the URL whole, however long, and a loopback
// or private address named as such — in both languages; a public one carries no such note.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { ApprovalCard } from "./ApprovalCard";
import { sampleCanonical } from "./sample";
import { I18n, translator } from "../../i18n";

afterEach(cleanup);

const open = (args: Record<string, unknown>) => ({
  approvalId: "ap-open",
  tool: "open_webpage",
  arguments: args,
  canonical: sampleCanonical(args),
  digest: "e".repeat(64),
  state: "pending" as const,
});

const show = (args: Record<string, unknown>, lang: "en" | "zh" = "en") =>
  render(
    <I18n.Provider value={translator(lang)}>
      <ApprovalCard request={open(args)} onDecide={async () => "approved"} />
    </I18n.Provider>,
  );

describe("open_webpage card", () => {
  it("shows the whole URL and names a loopback address", () => {
    const url = `http://127.0.0.1:4100/site/${"a".repeat(1900)}?q=1#frag`;
    show({ url, addressKind: "loopback" });
    expect(screen.getByRole("group", { name: "Approve open_webpage?" })).toBeTruthy();
    expect(screen.getByText(url).textContent).toBe(url);
    expect(screen.getByRole("note").textContent).toMatch(/on this computer \(loopback\)/);
  });

  it("names a private address, in Chinese too", () => {
    const { unmount } = show({ url: "http://192.168.1.20/", addressKind: "private" });
    expect(screen.getByRole("note").textContent).toMatch(/local network \(private\)/);
    unmount();
    show({ url: "http://192.168.1.20/", addressKind: "private" }, "zh");
    expect(screen.getByRole("note").textContent).toMatch(/局域网内/);
    expect(screen.getByText("http://192.168.1.20/")).toBeTruthy();
  });

  it("carries no address note for a public one, and says nothing is read", () => {
    show({ url: "https://example.com/", addressKind: "public" });
    expect(screen.queryByRole("note")).toBeNull();
    expect(screen.getByText("https://example.com/")).toBeTruthy();
    expect(screen.getByText(/nothing is read or sent to the model/)).toBeTruthy();
  });
});
