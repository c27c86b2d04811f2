#!/usr/bin/env python3
"""Packages a Wisp binary built for Windows or macOS as a person there gets it.

  scripts/package-desktop.py windows WISP_EXE OUT_DIR   -> wisp-VERSION-windows-x86_64.zip
  scripts/package-desktop.py macos WISP_BINARY OUT_DIR  -> Wisp-VERSION-macos-aarch64.tar.gz

Windows: one folder with wisp.exe, its icon, a README for Windows and a PowerShell script
that adds Wisp to the Start menu (a shortcut running `wisp.exe serve`). macOS: Wisp.app
(Info.plist, a launcher running `wisp serve`, the binary, the icon). Neither can be signed
here; macOS' Gatekeeper asks the person to open an unsigned app once with Control-click →
Open (the README says so). The icons are made from packaging/icons' PNGs: an .ico and an
.icns may hold PNG images as they are, so no image library is needed. Prints the path made.
"""

import io
import os
import plistlib
import re
import struct
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "packaging" / "icons"
BUNDLE_ID = "io.github.wisp-agent.Wisp"

# Windows reads 16-256 px from an .ico; 256 is written as 0 in the entry's one-byte size.
ICO_SIZES = [16, 32, 48, 64, 128, 256]
# The .icns types that hold PNG data, by size (Apple's "icns" format, macOS 10.7+).
ICNS_TYPES = [(b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
              (b"ic09", 512)]

WINDOWS_README = """Wisp for Windows
================

Start Wisp: double-click wisp.exe, or run `wisp.exe serve` in a terminal. Wisp opens as an
app window of Microsoft Edge (or Chrome or Brave); closing the console window stops Wisp.

Add Wisp to the Start menu (once, for your user):

    powershell -ExecutionPolicy Bypass -File Add-StartMenuShortcut.ps1

Check the machine: `wisp.exe doctor`. Your data (sessions, settings, the log) is in
%APPDATA%\\Wisp; the DeepSeek key is kept in Windows' Credential Manager.

This build is not signed: Windows SmartScreen may ask you to confirm the first start
("More info" -> "Run anyway"). README.md is the full manual.
"""

SHORTCUT_PS1 = r"""# Adds "Wisp" to the current user's Start menu: a shortcut that runs `wisp.exe serve` from
# this folder, with Wisp's icon. Run it again after moving the folder.
$ErrorActionPreference = 'Stop'
$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$exe = Join-Path $here 'wisp.exe'
if (-not (Test-Path -LiteralPath $exe)) { throw "wisp.exe is not next to this script ($here)" }
$programs = [Environment]::GetFolderPath('Programs')
$link = Join-Path $programs 'Wisp.lnk'
$shell = New-Object -ComObject WScript.Shell
$shortcut = $shell.CreateShortcut($link)
$shortcut.TargetPath = $exe
$shortcut.Arguments = 'serve'
$shortcut.WorkingDirectory = $here
$shortcut.IconLocation = (Join-Path $here 'wisp.ico') + ',0'
$shortcut.Description = 'Wisp: a local AI agent host'
$shortcut.Save()
Write-Output "Added $link"
"""

# Finder starts CFBundleExecutable with no arguments; Wisp's binary needs `serve`. The binary's
# name must differ from the launcher's by more than case: macOS' file systems ignore case, so
# `wisp` would overwrite `Wisp` when the tarball is unpacked there.
MACOS_BINARY = "wisp-host"
MACOS_LAUNCHER = f"""#!/bin/sh
exec "$(dirname "$0")/{MACOS_BINARY}" serve "$@"
"""


def version() -> str:
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    found = re.search(r'^version = "([^"]+)"$', text, re.M)
    if not found:
        raise SystemExit("package-desktop: no version in Cargo.toml")
    return found.group(1)


def png(size: int) -> bytes:
    data = (ICONS / f"wisp-{size}.png").read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"package-desktop: wisp-{size}.png is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    if (width, height) != (size, size):
        raise SystemExit(f"package-desktop: wisp-{size}.png is {width}x{height}, not {size}x{size}")
    return data


def ico() -> bytes:
    images = [png(size) for size in ICO_SIZES]
    head = struct.pack("<HHH", 0, 1, len(images))
    offset = len(head) + 16 * len(images)
    entries = b""
    for size, data in zip(ICO_SIZES, images):
        side = 0 if size == 256 else size
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    return head + entries + b"".join(images)


def icns() -> bytes:
    body = b""
    for kind, size in ICNS_TYPES:
        data = png(size)
        body += kind + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def info_plist(ver: str) -> bytes:
    return plistlib.dumps({
        "CFBundleDevelopmentRegion": "en",
        "CFBundleDisplayName": "Wisp",
        "CFBundleExecutable": "Wisp",
        "CFBundleIconFile": "wisp",
        "CFBundleIdentifier": BUNDLE_ID,
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": "Wisp",
        "CFBundlePackageType": "APPL",
        "CFBundleShortVersionString": ver,
        "CFBundleVersion": ver,
        "LSApplicationCategoryType": "public.app-category.developer-tools",
        "LSMinimumSystemVersion": "11.0",
        "NSHighResolutionCapable": True,
    })


def windows(binary: Path, out: Path) -> Path:
    name = f"wisp-{version()}-windows-x86_64"
    path = out / f"{name}.zip"
    files = [
        ("wisp.exe", binary.read_bytes()),
        ("wisp.ico", ico()),
        ("README-Windows.txt", WINDOWS_README.replace("\n", "\r\n").encode()),
        ("Add-StartMenuShortcut.ps1", SHORTCUT_PS1.replace("\n", "\r\n").encode()),
        ("README.md", (ROOT / "README.md").read_bytes()),
    ]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for file, data in files:
            z.writestr(zipfile.ZipInfo(f"{name}/{file}", (2026, 1, 1, 0, 0, 0)), data,
                       zipfile.ZIP_DEFLATED)
    return path


def macos(binary: Path, out: Path) -> Path:
    ver = version()
    path = out / f"Wisp-{ver}-macos-aarch64.tar.gz"
    contents = "Wisp.app/Contents"
    files = [
        (f"{contents}/Info.plist", info_plist(ver), 0o644),
        (f"{contents}/PkgInfo", b"APPL????", 0o644),
        (f"{contents}/MacOS/Wisp", MACOS_LAUNCHER.encode(), 0o755),
        (f"{contents}/MacOS/{MACOS_BINARY}", binary.read_bytes(), 0o755),
        (f"{contents}/Resources/wisp.icns", icns(), 0o644),
    ]
    folders = ["Wisp.app", contents, f"{contents}/MacOS", f"{contents}/Resources"]
    with tarfile.open(path, "w:gz") as tar:
        for folder in folders:
            info = tarfile.TarInfo(folder)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
            tar.addfile(info)
        for file, data, mode in files:
            info = tarfile.TarInfo(file)
            info.size, info.mode, info.mtime = len(data), mode, 0
            tar.addfile(info, io.BytesIO(data))
    return path


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in ("windows", "macos"):
        raise SystemExit(__doc__)
    kind, binary, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if not binary.is_file():
        raise SystemExit(f"package-desktop: {binary} is not a file")
    out.mkdir(parents=True, exist_ok=True)
    made = windows(binary, out) if kind == "windows" else macos(binary, out)
    print(os.fspath(made))


if __name__ == "__main__":
    main()
