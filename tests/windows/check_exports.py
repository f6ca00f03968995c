#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Windows export test: the export tables of the built DLLs against the
inventory (tests/data/cudnn-8.9.4-api.json), read with
x86_64-w64-mingw32-objdump -p.

- cudnn64_8.dll exports the 264 functions (and FreeDNN's freednn*
  extensions), each with its own code (no forwarder), and nothing else;
- each cudnn_<sub>64_8.dll exports exactly the functions NVIDIA's DLL of
  that name exports (the split of tools/gen_api.py; the backend API is in
  cnn_infer), each one a forwarder to cudnn64_8.<same name>;
- cudart64_12.dll exports only cuda* functions, cublas64_12.dll only cublas*;
- every DLL imports only Windows' own DLLs (no libgcc or winpthread DLL to
  ship beside them);
- the import libraries lib/x64/<name>.lib name the right DLL and define
  __imp_<f> for exactly the functions of that DLL.

Usage: check_exports.py SOURCE_DIR BUILD_DIR [OBJDUMP [NM]]
"""
import json
import os
import re
import subprocess
import sys

SRC, BUILD = sys.argv[1], sys.argv[2]
OBJDUMP = sys.argv[3] if len(sys.argv) > 3 else "x86_64-w64-mingw32-objdump"
NM = sys.argv[4] if len(sys.argv) > 4 else "x86_64-w64-mingw32-nm"
SUBLIBS = ["ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"]
# Windows' own DLLs (and the CRT that ships with Windows): the only imports
# allowed.
SYSTEM_DLL = re.compile(r"^(kernel32|msvcrt|ucrtbase|ntdll|advapi32|user32|shell32|ole32|"
                        r"api-ms-win-[a-z0-9-]+)\.dll$", re.I)

api = json.load(open(os.path.join(SRC, "tests", "data", "cudnn-8.9.4-api.json")))
names = {fn["name"] for fn in api["functions"]}
failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


def pe_info(dll):
    """(exports: name -> forwarder target or None, imported DLL names)."""
    out = subprocess.run([OBJDUMP, "-p", dll], capture_output=True, text=True, check=True).stdout
    targets = {}  # address-table index -> forwarder or None
    section = None
    by_index = {}
    imports = re.findall(r"^\s*DLL Name: (\S+)", out, re.M)
    for line in out.splitlines():
        if line.startswith("Export Address Table -- "):
            section = "eat"
            continue
        if line.startswith("[Ordinal/Name Pointer] Table"):
            section = "names"
            continue
        if not line.strip():
            section = None
            continue
        m = re.match(r"\s*\[\s*(\d+)\]\s+(.*)$", line)
        if not m or section is None:
            continue
        idx, rest = int(m.group(1)), m.group(2)
        if section == "eat":
            f = re.search(r"Forwarder RVA -- (\S+)", rest)
            targets[idx] = f.group(1) if f else None
        else:
            by_index[rest.strip()] = idx
    exports = {name: targets.get(idx) for name, idx in by_index.items()}
    return exports, imports


def check_imports(label, imports):
    foreign = [d for d in imports if not SYSTEM_DLL.match(d)]
    check(not foreign, f"{label} imports non-system DLLs {foreign}")


bindir = os.path.join(BUILD, "bin")
main, imports = pe_info(os.path.join(bindir, "cudnn64_8.dll"))
missing = sorted(names - set(main))
extra = sorted(n for n in main if n not in names and not n.startswith("freednn"))
check(not missing, f"cudnn64_8.dll misses {missing[:10]}")
check(not extra, f"cudnn64_8.dll exports more than the API: {extra[:10]}")
check(all(main[n] is None for n in main), "cudnn64_8.dll has forwarders")
check(len(main) >= 264 and len(names) == 264, f"cudnn64_8.dll: {len(main)} exports, inventory {len(names)}")
check_imports("cudnn64_8.dll", imports)

lib_exports = {"cudnn.lib": ("cudnn64_8.dll", set(main))}
for sub in SUBLIBS:
    dll = f"cudnn_{sub}64_8.dll"
    want = {fn["name"] for fn in api["functions"]
            if fn["sublib"] == f"cudnn_{sub}" or (sub == "cnn_infer" and fn["sublib"] == "cudnn_backend")}
    got, imports = pe_info(os.path.join(bindir, dll))
    check(set(got) == want, f"{dll} exports {len(got)} functions, expected {len(want)}: "
                            f"missing {sorted(want - set(got))[:5]} extra {sorted(set(got) - want)[:5]}")
    wrong = [n for n in got if got[n] != f"cudnn64_8.{n}"]
    check(not wrong, f"{dll}: not forwarded to cudnn64_8: {wrong[:5]} ({[got[n] for n in wrong[:5]]})")
    check_imports(dll, imports)
    lib_exports[f"cudnn_{sub}.lib"] = (dll, want)
total = sum(len(v[1]) for k, v in lib_exports.items() if k != "cudnn.lib")
check(total == 264, f"the six sub-library DLLs export {total} functions in all, expected 264")

for lib, prefix in (("cudart", "cuda"), ("cublas", "cublas")):
    path = os.path.join(bindir, f"{lib}64_12.dll")
    if not os.path.exists(path):
        print(f"skip: {lib}64_12.dll not built")
        continue
    got, imports = pe_info(path)
    bad = [n for n in got if not n.startswith(prefix) or got[n] is not None]
    check(got and not bad, f"{lib}64_12.dll exports {len(got)} functions, foreign ones {bad[:5]}")
    check_imports(f"{lib}64_12.dll", imports)
    lib_exports[f"{lib}.lib"] = (f"{lib}64_12.dll", set(got))

# Import libraries: dlltool's archive members name the DLL in .idata$7 and
# define __imp_<name> per function.
for lib, (dll, want) in lib_exports.items():
    path = os.path.join(BUILD, "lib", "x64", lib)
    if not os.path.exists(path):
        check(False, f"lib/x64/{lib} missing")
        continue
    out = subprocess.run([NM, path], capture_output=True, text=True, check=True).stdout
    imps = set(re.findall(r" I __imp_(\S+)$", out, re.M))
    check(imps == want, f"lib/x64/{lib}: {len(imps)} __imp_ symbols, expected {len(want)}: "
                        f"missing {sorted(want - imps)[:5]} extra {sorted(imps - want)[:5]}")
    text = open(path, "rb").read()
    check(dll.encode() in text, f"lib/x64/{lib} does not name {dll}")

print(f"check_exports: {passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
