#!/usr/bin/env python3
"""The Windows .zip and the macOS Wisp.app as a person unpacks them (scripts/package-desktop.py).

  scripts/package-desktop-test.py WISP_EXE UNIX_WISP

Windows: the zip is unpacked and its wisp.exe run under Wine (`--version`); the icon, the
README and the Start-menu script are checked. macOS: no macOS program can be built or run
here, so the bundle is made around UNIX_WISP (this machine's build) and checked for what
Finder reads: Info.plist names an executable that exists and is executable, its icon file
is an .icns holding every size, and the launcher starts the binary as `wisp serve …`.
Called by scripts/cross, with WINEPREFIX set.
"""

import plistlib
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "package-desktop.py"


def package(kind: str, binary: Path, out: Path) -> Path:
    made = subprocess.run([sys.executable, str(PACKAGE), kind, str(binary), str(out)],
                          check=True, capture_output=True, text=True).stdout.strip()
    return Path(made)


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"package-desktop-test: {what}")


def version() -> str:
    for line in (HERE.parent / "Cargo.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith('version = "'):
            return line.split('"')[1]
    raise SystemExit("package-desktop-test: no version")


def check_windows(exe: Path, tmp: Path) -> None:
    made = package("windows", exe, tmp / "out")
    name = f"wisp-{version()}-windows-x86_64"
    expect(made.name == f"{name}.zip", f"the zip is named {made.name}")
    with zipfile.ZipFile(made) as z:
        names = sorted(z.namelist())
        expect(names == sorted(f"{name}/{f}" for f in [
            "wisp.exe", "wisp.ico", "README-Windows.txt", "Add-StartMenuShortcut.ps1",
            "README.md"]), f"the zip holds {names}")
        z.extractall(tmp / "win")
    folder = tmp / "win" / name
    ico = (folder / "wisp.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    expect((reserved, kind, count) == (0, 1, 6), f"the .ico's header is {reserved, kind, count}")
    sides = []
    for i in range(count):
        width, _, _, _, _, _, size, offset = struct.unpack("<BBBBHHII", ico[6 + 16 * i:22 + 16 * i])
        expect(ico[offset:offset + 8] == b"\x89PNG\r\n\x1a\n", f"image {i} of the .ico is no PNG")
        expect(offset + size <= len(ico), f"image {i} of the .ico runs past its end")
        sides.append(width or 256)
    expect(sides == [16, 32, 48, 64, 128, 256], f"the .ico holds {sides}")
    # Bytes, not read_text: that would turn the CRLF line ends into LF.
    script = (folder / "Add-StartMenuShortcut.ps1").read_bytes().decode("utf-8")
    expect("$shortcut.Arguments = 'serve'" in script and "\r\n" in script,
           "the shortcut script does not start `serve` with Windows line ends")
    ran = subprocess.run(["/usr/lib/wine/wine64", str(folder / "wisp.exe"), "--version"],
                         capture_output=True, text=True, timeout=300, cwd=folder)
    expect(ran.returncode == 0 and version() in ran.stdout,
           f"wisp.exe --version under Wine: {ran.returncode} {ran.stdout!r} {ran.stderr[-500:]!r}")
    print(f"package-desktop-test: {made.name} unpacks and its wisp.exe runs: {ran.stdout.strip()}")


def check_macos(binary: Path, tmp: Path) -> None:
    made = package("macos", binary, tmp / "out")
    expect(made.name == f"Wisp-{version()}-macos-aarch64.tar.gz", f"the tarball is {made.name}")
    with tarfile.open(made) as tar:
        names = [m.name for m in tar.getmembers()]
        expect(all(n.startswith("Wisp.app") for n in names), "the tarball holds more than Wisp.app")
        # macOS' file systems ignore case: two names equal but for case would be one file there.
        folded = sorted(n.casefold() for n in names)
        expect(len(set(folded)) == len(folded),
               f"names that are one file on macOS: {[n for n in names if folded.count(n.casefold()) > 1]}")
        tar.extractall(tmp / "mac", filter="data")
    contents = tmp / "mac" / "Wisp.app" / "Contents"
    info = plistlib.loads((contents / "Info.plist").read_bytes())
    expect(info["CFBundlePackageType"] == "APPL", f"package type {info['CFBundlePackageType']}")
    expect(info["CFBundleShortVersionString"] == version(), "the bundle's version")
    launcher = contents / "MacOS" / info["CFBundleExecutable"]
    expect(launcher.is_file() and launcher.stat().st_mode & 0o111,
           f"{launcher} is not an executable file")
    icns = (contents / "Resources" / (info["CFBundleIconFile"] + ".icns")).read_bytes()
    expect(icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns),
           "the .icns header does not give its length")
    kinds, at = [], 8
    while at < len(icns):
        kind, size = icns[at:at + 4], struct.unpack(">I", icns[at + 4:at + 8])[0]
        expect(icns[at + 8:at + 16] == b"\x89PNG\r\n\x1a\n", f"{kind!r} of the .icns is no PNG")
        kinds.append(kind.decode())
        at += size
    expect(at == len(icns) and kinds == ["icp4", "icp5", "icp6", "ic07", "ic08", "ic09"],
           f"the .icns holds {kinds}")
    ran = subprocess.run([str(launcher), "--help"], capture_output=True, text=True, timeout=60)
    expect(ran.returncode == 0 and "--no-open" in ran.stdout,
           f"the launcher did not start `wisp serve`: {ran.returncode} {ran.stdout[-300:]!r}")
    print(f"package-desktop-test: {made.name} unpacks as Wisp.app; Finder's entries check out "
          "(the binary in it was this machine's: no macOS program is built here)")


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        check_windows(Path(sys.argv[1]), Path(tmp))
        check_macos(Path(sys.argv[2]), Path(tmp))


if __name__ == "__main__":
    main()
