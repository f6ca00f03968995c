# SPDX-License-Identifier: Apache-2.0
"""The shipped shared libraries run on any x86-64 Linux with glibc >= 2.28
(docs/install.md, "Requirements"): no symbol version newer than GLIBC_2.28
(objdump -T), and DT_NEEDED limited to the C library's own parts.

usage: check_portable.py [--allow SONAME]... LIB...

--allow names a library that may be needed besides those (the build says
which, when it links a dependency dynamically).  Prints one line per file
and 'N passed, N failed'; exits 1 on any failure.
"""
import re
import subprocess
import sys

MAX_GLIBC = (2, 28)
BASE = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "ld-linux-x86-64.so.2",
        "ld-linux-aarch64.so.1", "librt.so.1"}


def glibc_versions(path):
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
    return sorted({tuple(int(x) for x in m.split(".")) for m in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out)})


def needed(path):
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True, check=True).stdout
    return [ln.split()[1] for ln in out.splitlines() if ln.strip().startswith("NEEDED")]


def main(argv):
    allow, libs = set(), []
    i = 0
    while i < len(argv):
        if argv[i] == "--allow":
            allow.add(argv[i + 1])
            i += 2
        else:
            libs.append(argv[i])
            i += 1
    passed = failed = 0
    for lib in libs:
        vers = glibc_versions(lib)
        top = vers[-1] if vers else None
        extra = [n for n in needed(lib) if n not in BASE and n not in allow and not n.startswith("libcudnn")]
        ok = (top is None or top <= MAX_GLIBC) and not extra
        print("%s %s: highest GLIBC_%s, needs %s%s" % ("ok  " if ok else "FAIL", lib,
              ".".join(map(str, top)) if top else "-", ", ".join(needed(lib)),
              (" (not allowed: %s)" % ", ".join(extra)) if extra else ""))
        passed += ok
        failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
