#!/usr/bin/env python3
"""Runs the ```sh blocks of a Markdown file, in order, as one bash -e script
from the repository root, so that a document's commands stay true.

usage: run-doc-commands.py DOC.md SOURCE_ROOT BUILD_DIR

`build/` at the start of a word is replaced by BUILD_DIR (ctest's build
folder). Exits with the script's status; each command is echoed first.
"""
import re
import subprocess
import sys


def main():
    doc, root, build = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
    text = open(doc).read()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    if not blocks:
        sys.exit(f"{doc}: no ```sh blocks")
    script = "\n".join(blocks)
    script = re.sub(r"(?<![\w/.$-])build/", build + "/", script)
    return subprocess.run(["bash", "-exo", "pipefail", "-c", script],
                          cwd=root).returncode


if __name__ == "__main__":
    sys.exit(main())
