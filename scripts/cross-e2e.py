#!/usr/bin/env python3
"""The Windows build of the Host, end to end under Wine, over its API (called by scripts/cross).

usage: cross-e2e.py WISP_EXE WORK_DIR

Starts `wisp.exe serve --simulate` on a project folder, then checks what a person relies on:
the project is shown as they write its path (no `\\\\?\\`), an approved write lands on disk and a
wrong digest or a replay is refused, escape attempts are refused before any approval, a
second Host on the data dir is refused naming the first, a web tab starts the browser
through the relay (`wisp.exe browser-pipe`, the DevTools pipe as inherited handles; the browser
is the stand-in WISP_TEST_FAKE_BROWSER names), and after the Host is killed the next one starts
on the same data dir with the history intact.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

WINE = "/usr/lib/wine/wine64"
TOKEN = "wisp-cross-e2e-7Kq2xZ9mVb4Lr8Tn3HwPd"  # 32+ characters, not a repeated piece
DEMO_MARKER = "[demo:write]"


def windows_path(path):
    """Wine's Z: drive is the Linux root."""
    return "Z:" + path.replace("/", "\\")


def start(exe, data, project):
    env = dict(os.environ, WISP_TOKEN=TOKEN, WINEDEBUG="-all",
               WISP_BROWSER=windows_path(os.environ["WISP_TEST_FAKE_BROWSER"]))
    args = [WINE, exe, "serve", "--simulate", "--no-open", "--port", "0",
            "--data-dir", windows_path(data)]
    if project:
        args.append(windows_path(project))
    host = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    deadline = time.time() + 120
    seen = []
    while time.time() < deadline:
        line = host.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            return host, int(found.group(1))
    host.kill()
    sys.exit("the Host did not say where it listens:\n" + "".join(seen))


def call(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read()
            return answer.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def ok(port, method, path, body=None):
    status, value = call(port, method, path, body)
    check(200 <= status < 300, f"{method} {path}: {status} {value}")
    return value


def check(condition, what):
    if not condition:
        sys.exit(f"cross-e2e: FAILED: {what}")


def wait_run(port, run, until):
    deadline = time.time() + 60
    while time.time() < deadline:
        r = ok(port, "GET", f"/api/runs/{run}")
        if r["status"] in until:
            return r
        time.sleep(0.1)
    sys.exit(f"cross-e2e: FAILED: run stuck: {r}")


def calls(run):
    return [c for s in run["steps"] for c in s["toolCalls"]]


def main():
    exe, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    data, project = os.path.join(work, "data"), os.path.join(work, "project")
    os.makedirs(project)
    host, port = start(exe, data, project)
    try:
        health = ok(port, "GET", "/api/health")
        check(health["mode"] == "simulation", f"health: {health}")
        [p] = ok(port, "GET", "/api/projects")
        check(p["root"] == windows_path(project), f"the project is shown as {p['root']!r}")

        session = ok(port, "POST", "/api/sessions", {})["id"]
        run = ok(port, "POST", f"/api/sessions/{session}/runs",
                 {"text": f"{DEMO_MARKER} please"})["runId"]
        r = wait_run(port, run, ["awaiting_approval"])
        [approval] = [c["approval"] for c in calls(r) if c.get("approval")]
        check(not os.path.exists(os.path.join(project, "wisp-demo.txt")),
              "the file exists before the approval")
        status, _ = call(port, "POST", f"/api/approvals/{approval['id']}",
                         {"decision": "approve", "digest": "0" * 64})
        check(status == 409, f"a wrong digest answered {status}")
        status, _ = call(port, "POST", f"/api/approvals/{approval['id']}",
                         {"decision": "approve", "digest": approval["digest"]})
        check(status == 204, f"the approval answered {status}")
        status, _ = call(port, "POST", f"/api/approvals/{approval['id']}",
                         {"decision": "approve", "digest": approval["digest"]})
        check(status == 409, f"a replayed approval answered {status}")
        r = wait_run(port, run, ["completed", "failed", "cancelled", "interrupted"])
        check(r["status"] == "completed" and [c["status"] for c in calls(r)] == ["succeeded"],
              f"the approved write: {r}")
        with open(os.path.join(project, "wisp-demo.txt"), encoding="utf-8") as f:
            check(f.read().strip() != "", "the written file is empty")

        run = ok(port, "POST", f"/api/sessions/{session}/runs",
                 {"text": "[demo:escape] please"})["runId"]
        r = wait_run(port, run, ["completed", "failed", "awaiting_approval"])
        check(r["status"] == "completed", f"escape attempts: {r['status']}")
        check(all(c["status"] != "succeeded" for c in calls(r)) and calls(r),
              f"an escape attempt succeeded: {[c['status'] for c in calls(r)]}")
        check(not any(c.get("approval") for c in calls(r)), "an escape attempt got a card")

        # A web tab: the Host starts its browser through the relay, which hands it the pipe.
        tab = ok(port, "POST", f"/api/sessions/{session}/tabs",
                 {"kind": "web", "url": "http://127.0.0.1:9/"})
        # A page of the Host's browser has a load state (a web-only tab has none); the
        # stand-in never loads anything, so it stays loading.
        check(tab["kind"] == "web" and tab.get("loadState") == "loading",
              f"the web tab is not a page of the Host's browser: {tab}")
        profile = os.path.join(data, "browser-profile")
        with open(os.path.join(profile, "command-line.txt"), encoding="utf-8") as f:
            command_line = f.read()
        check(command_line.count("--remote-debugging-io-pipes=") == 1
              and "--remote-debugging-pipe" in command_line
              and "stdin=2 stdout=2" in command_line,
              f"the browser was not handed the pipe: {command_line}")
        with open(os.path.join(profile, "methods.txt"), encoding="utf-8") as f:
            methods = f.read().split()
        check(methods[:3] == ["Target.setDiscoverTargets", "Browser.setDownloadBehavior",
                              "Target.createTarget"],
              f"the browser's commands: {methods}")

        second = subprocess.run(
            [WINE, exe, "serve", "--simulate", "--no-open", "--port", "0",
             "--data-dir", windows_path(data)],
            env=dict(os.environ, WISP_TOKEN=TOKEN, WINEDEBUG="-all"),
            capture_output=True, text=True, timeout=120)
        check(second.returncode != 0, "a second Host on the data dir started")
        # Windows' lock keeps everyone else from reading the locked file: the Host's pid and
        # URL are in a file of their own, so the second one can say which Host runs.
        check(re.search(r"already running for this data dir \(pid \d+, URL http://127\.0\.0\.1:"
                        + str(port) + "/", second.stderr) is not None,
              f"the second Host did not name the first: {second.stderr[-400:]!r}")
    finally:
        host.kill()
        host.wait()
        subprocess.run(["/usr/lib/wine/wineserver", "-k"], check=False)

    # Killed, not stopped: the next Host starts on the same data dir and has everything.
    host, port = start(exe, data, None)
    try:
        runs = ok(port, "GET", f"/api/sessions/{session}/runs?limit=10")["runs"]
        check([r["status"] for r in runs] == ["completed", "completed"],
              f"after a kill the runs are {[r['status'] for r in runs]}")
    finally:
        host.kill()
        host.wait()
        subprocess.run(["/usr/lib/wine/wineserver", "-k"], check=False)
    print("cross-e2e: the Windows Host works end to end under Wine")


if __name__ == "__main__":
    main()
