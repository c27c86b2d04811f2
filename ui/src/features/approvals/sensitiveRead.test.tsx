// The files_read card for a file that looks like credentials: "send this file to the model
// provider?" with path, size, the part and why — in both languages — answered only by a
// deliberate act of the person, and titled by what happened once answered.
import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { ApprovalCard, type Outcome } from "./ApprovalCard";
import { sampleCanonical } from "./sample";
import { I18n, translator } from "../../i18n";

afterEach(cleanup);

const read = (args: Record<string, unknown>, state: "pending" | "approved" | "rejected" = "pending") => ({
  approvalId: "ap-read",
  tool: "files_read",
  arguments: args,
  canonical: sampleCanonical(args),
  digest: "f".repeat(64),
  state,
});

const env = { path: ".env", size: 1234, offset: 0, end: 1234, sensitive: "env_file", reason: "an environment file, which often holds API keys and passwords" };

const show = (args: Record<string, unknown>, lang: "en" | "zh" = "en", onDecide: (d: "approve" | "reject") => Promise<Outcome> = async () => "approved", state: "pending" | "approved" | "rejected" = "pending") =>
  render(
    <I18n.Provider value={translator(lang)}>
      <ApprovalCard request={read(args, state)} onDecide={onDecide} />
    </I18n.Provider>,
  );

describe("files_read card of a file that looks like credentials", () => {
  it("asks to send the file, with its path, size and why, and says the content is not shown", () => {
    show(env);
    const card = screen.getByRole("group", { name: "Send this file to the model provider?" });
    expect(card.textContent).toContain(".env");
    expect(screen.getByText("1,234 bytes")).toBeTruthy();
    expect(screen.getByText(/An environment file, which often holds API keys and passwords\./)).toBeTruthy();
    expect(screen.getByText(/Its content is not shown here\. Approving sends it once/)).toBeTruthy();
    expect(screen.getByText(/The next read asks again/)).toBeTruthy();
    // A whole file has no part to name.
    expect(screen.queryByText("Part")).toBeNull();
  });

  it("words it in Chinese, the reason by its kind", () => {
    show({ ...env, sensitive: "ssh_key", path: "deploy/id_ed25519", size: 1 }, "zh");
    expect(screen.getByRole("group", { name: "把这个文件发送给模型服务商？" })).toBeTruthy();
    expect(screen.getByText("1 字节")).toBeTruthy();
    expect(screen.getByText(/SSH 密钥文件/)).toBeTruthy();
    expect(screen.getByText(/这里不显示文件内容/)).toBeTruthy();
  });

  it("names the part of a file read in parts, and one byte as one", () => {
    show({ ...env, offset: 262144, end: 300000, size: 300000 });
    expect(screen.getByText("bytes 262,144–300,000 of 300,000")).toBeTruthy();
    cleanup();
    show({ ...env, size: 1, end: 1 });
    expect(screen.getByText("1 byte")).toBeTruthy();
  });

  it("shows the Host's own sentence for a kind it does not know", () => {
    show({ ...env, sensitive: "something_new", reason: "a brand-new kind of secret file" });
    expect(screen.getByText("Why Wisp asks").parentElement!.textContent).toBe("Why Wisp asks a brand-new kind of secret file");
  });

  it("is answered by a click or a key on a card the person moved to, never by a stray key", async () => {
    const onDecide = vi.fn(async () => "rejected" as const);
    show(env, "en", onDecide);
    const card = screen.getByRole("group");
    card.focus();
    await act(async () => fireEvent.keyDown(card, { key: "a" }));
    expect(onDecide).not.toHaveBeenCalled();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: /Reject/ })));
    expect(onDecide).toHaveBeenCalledTimes(1);
    expect(onDecide).toHaveBeenCalledWith("reject", "f".repeat(64));
    expect(screen.getByRole("group", { name: "Rejected: send .env to the model provider" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Approve/ })).toBeNull();
  });

  it("is titled by what was done once approved", () => {
    show(env, "en", async () => "approved", "approved");
    expect(screen.getByRole("group", { name: "Approved: send .env to the model provider" })).toBeTruthy();
  });
});
