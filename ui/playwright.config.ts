// End-to-end tests in real headless Chromium (Debian's; Playwright's own download cannot work
// here) against `wisp serve --simulate` on temp projects.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  workers: 1,
  reporter: [["list"], ["./scripts/failure-context.ts"]],
  outputDir: "test-results/playwright",
  use: {
    viewport: { width: 1400, height: 900 },
    locale: "en-US",
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
