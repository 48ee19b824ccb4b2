#!/usr/bin/env python3
"""Fills vscode-extension/bundled/libs/ with easel-ls and its dependency closure for one VS Code
target, so a platform-specific .vsix runs the server with any CPython >= 3.11 on the machine.

    python3 scripts/bundle-server.py --target linux-x64

pip does the work: the easel_ls wheel is built from this repo, then `pip install --target` with
the target's platform tags resolves `[project].dependencies` against the package index, once per
CPython minor version. The compiled dependencies (pyyaml, rpds-py, pyromark) ship only
cpXY-specific wheels, no abi3, so each version gets its own folder `libs/cp3XX/` and the
extension puts the one matching the chosen interpreter on PYTHONPATH. `libs/bundle.json` lists
them. Stdlib only; run it with any Python that has pip (the repo's .venv does).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXTENSION = Path(__file__).resolve().parent.parent
REPO = EXTENSION.parent
DEFAULT_OUT = EXTENSION / "bundled" / "libs"

# Every CPython release that easel-ls supports and that has wheels for the compiled
# dependencies. A newer interpreter finds no folder and the extension falls back (it says so).
PYTHONS = ("3.11", "3.12", "3.13", "3.14", "3.15")

# VS Code target -> pip platform tags, most preferred first. manylinux_2_17 first: the widest
# glibc range; pip does not expand a manylinux tag to older ones, so each is listed. A macOS
# tag covers the older macOS versions too (pip expands those).
TARGETS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64"),
    "linux-arm64": ("manylinux2014_aarch64", "manylinux_2_17_aarch64", "manylinux_2_28_aarch64"),
    "alpine-x64": ("musllinux_1_2_x86_64",),
    "alpine-arm64": ("musllinux_1_2_aarch64",),
    "darwin-x64": ("macosx_11_0_x86_64",),
    "darwin-arm64": ("macosx_11_0_arm64",),
    "win32-x64": ("win_amd64",),
    "win32-arm64": ("win_arm64",),
}
# pyyaml has no win_arm64 wheel for 3.11 (Windows on Arm builds of 3.11 are rare anyway).
PYTHONS_FOR = {"win32-arm64": PYTHONS[1:]}


def pythons_for(target: str) -> tuple[str, ...]:
    return PYTHONS_FOR.get(target, PYTHONS)


def build_wheel(python: str, dest: Path) -> Path:
    """The easel_ls wheel, built from a copy of the sources: building in the repo would leave
    build/ and egg-info behind in a tree that others work in."""
    with tempfile.TemporaryDirectory(prefix="easel-ls-src-") as tmp:
        src = Path(tmp)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(REPO / name, src / name)
        shutil.copytree(
            REPO / "easel_ls", src / "easel_ls", ignore=shutil.ignore_patterns("__pycache__")
        )
        run([python, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest), str(src)])
    wheels = sorted(dest.glob("easel_ls-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"bundle-server: expected one easel_ls wheel in {dest}, found {wheels}")
    return wheels[0]


def install(python: str, wheel: Path, target: str, version: str, dest: Path) -> None:
    """The wheel and its dependency closure for one CPython version, binary wheels only."""
    nodot = version.replace(".", "")
    platforms = [arg for tag in TARGETS[target] for arg in ("--platform", tag)]
    run(
        [
            python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
            "--target", str(dest), "--only-binary=:all:", *platforms,
            "--python-version", version, "--implementation", "cp",
            "--abi", f"cp{nodot}", "--abi", "abi3", "--abi", "none",
            "--no-compile",  # .pyc for the build machine's Python would be dead weight
            str(wheel),
        ]
    )  # fmt: skip
    # Console scripts point at the build machine's interpreter: useless in the package.
    shutil.rmtree(dest / "bin", ignore_errors=True)


def installed(dest: Path) -> dict[str, str]:
    """name -> version of what pip put in a folder, from its .dist-info directories."""
    found = {}
    for info in sorted(dest.glob("*.dist-info")):
        meta = (info / "METADATA").read_text(encoding="utf-8").splitlines()
        fields = dict(line.split(": ", 1) for line in meta if ": " in line and line[0] != " ")
        found[fields["Name"]] = fields["Version"]
    return found


def host_target() -> str | None:
    """The VS Code target of this machine, when it is one of TARGETS."""
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    if sys.platform == "linux":
        os_name = "linux" if platform.libc_ver()[0] == "glibc" else "alpine"
    else:
        os_name = {"darwin": "darwin", "win32": "win32"}.get(sys.platform, "")
    target = f"{os_name}-{arch}"
    return target if target in TARGETS else None


def smoke_test(python: str, libs: Path) -> None:
    """On a machine of the target, the bundle must import with the compiled parts and win over
    any easel_ls the building Python has (the repo's venv has an editable one)."""
    code = (
        "import sys, easel_ls, easel_ls.cli, pygls.lsp.server, jsonschema, pyromark, yaml; "
        f"assert easel_ls.__file__.startswith({str(libs)!r}), easel_ls.__file__; "
        "assert yaml.__with_libyaml__, 'no libyaml'"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=str(libs), PYTHONNOUSERSITE="1")
    done = subprocess.run([python, "-s", "-P", "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bundle-server: {libs} does not import:\n{done.stderr}")
    print(f"bundle-server: {libs.name} imports with {python}")


def run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"bundle-server: failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--target", choices=sorted(TARGETS))
    what.add_argument(
        "--build-wheel",
        type=Path,
        metavar="DIR",
        help="only build the easel_ls wheel into DIR and print its path (one wheel, many targets)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="default: bundled/libs")
    parser.add_argument(
        "--wheel", type=Path, help="an easel_ls wheel to bundle instead of building one"
    )
    args = parser.parse_args(argv)

    if args.build_wheel:
        args.build_wheel.mkdir(parents=True, exist_ok=True)
        print(build_wheel(sys.executable, args.build_wheel.resolve()))
        return 0
    out: Path = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)  # never mix in another target's binaries
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="easel-ls-wheel-") as tmp:
        wheel = args.wheel.resolve() if args.wheel else build_wheel(sys.executable, Path(tmp))
        pythons = {}
        for version in pythons_for(args.target):
            folder = f"cp{version.replace('.', '')}"
            install(sys.executable, wheel, args.target, version, out / folder)
            pythons[version] = {"path": folder, "packages": installed(out / folder)}
            print(
                f"bundle-server: {args.target} {folder}: {len(pythons[version]['packages'])} packages"
            )
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if host_target() == args.target and running in pythons:
        smoke_test(sys.executable, out / pythons[running]["path"])
    easel = {info["packages"].get("easel-ls") for info in pythons.values()}
    if len(easel) != 1 or None in easel:
        sys.exit(f"bundle-server: easel-ls missing or mixed versions in {out}: {easel}")
    manifest = {"target": args.target, "easelLs": easel.pop(), "pythons": pythons}
    (out / "bundle.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"bundle-server: wrote {out / 'bundle.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
