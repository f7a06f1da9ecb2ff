#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Size and shape of the kernel glue and the engine.

   scripts/layers.py [--check] [--objs DIR] [--help]

Prints, for kernel/*.c and kernel/engine/*.c: lines per file, the longest
functions, and the call graphs between the glue files and between the
engine files (from the symbols each built object defines and uses, `nm`),
with every call cycle. With --check it exits 1 when a limit of
Documentation/mroce.rst ("Files") is broken: a glue file over 600 lines,
an engine file over 1000, a function over 100 lines, a call cycle between
glue files or between engine files, counters too many for one
`rdma statistic` message, or a counter
(the glue's, kernel/counters.c, or the engine's, MRE_COUNTERS in
kernel/engine/ep.h) that Documentation/mroce.rst does not list, or a
function its packet walk names that is not in the file it names. The call
graph needs the module built (`make module`); without the objects only
the rest is checked. Ends with "N passed, N failed" (one check per
limit).
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

GLUE_MAX = 600
ENGINE_MAX = 1000
FUNC_MAX = 100
STAT_MAX = 3700

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sources(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(".c") or f.endswith(".h"))


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


FN_START = re.compile(r"^[A-Za-z_].*\)\s*$")


def functions(path):
    """(name, first line, length) of each function: kernel style, braces at column 0."""
    out = []
    src = lines_of(path)
    i = 0
    while i < len(src):
        if src[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and not FN_START.match(src[j]) and src[j].startswith((" ", "\t")):
                j -= 1
            m = re.search(r"(\w+)\s*\(", src[j])
            k = i + 1
            while k < len(src) and src[k] != "}":
                k += 1
            if m and "=" not in src[j].split("(")[0]:
                out.append((m.group(1), j + 1, k - j + 1))
            i = k
        i += 1
    return out


def nm_symbols(obj):
    res = subprocess.run(["nm", obj], capture_output=True, text=True, check=True)
    defined, used = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
    return defined, used


def sccs(graph):
    """Tarjan: the strongly connected components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def call_graph(group, files, objdir, verdict):
    """The calls between the built objects of @files (nm): print, check for cycles."""
    objs = {}
    for f in files:
        if f.endswith(".c"):
            o = os.path.join(objdir, os.path.relpath(f, ROOT))[:-2] + ".o"
            if os.path.exists(o):
                objs[os.path.basename(f)[:-2]] = o
    if len(objs) != len([f for f in files if f.endswith(".c")]):
        print("%s call graph: module not built (make module), not checked" % group)
        return
    owner, uses = {}, {}
    for name, o in objs.items():
        d, u = nm_symbols(o)
        for s in d:
            owner[s] = name
        uses[name] = u
    graph = defaultdict(set)
    for name in objs:
        graph[name]
        for s in uses[name]:
            if s in owner and owner[s] != name:
                graph[name].add(owner[s])
    print("%s call graph (file: files it calls):" % group)
    for name in sorted(graph):
        print("  %-10s %s" % (name, " ".join(sorted(graph[name]))))
    cyc = sccs(graph)
    for c in cyc:
        print("  cycle: " + " ".join(c))
    verdict(not cyc, "no call cycle between %s files" % group)


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__.strip())
        return 0
    check = "--check" in argv
    objdir = ROOT
    if "--objs" in argv:
        objdir = argv[argv.index("--objs") + 1]
    passed = failed = 0

    def verdict(ok, what):
        nonlocal passed, failed
        print(("ok   " if ok else "FAIL ") + what)
        if ok:
            passed += 1
        else:
            failed += 1

    glue = sources(os.path.join(ROOT, "kernel"))
    engine = sources(os.path.join(ROOT, "kernel", "engine"))
    print("lines per file (glue limit %d, engine %d):" % (GLUE_MAX, ENGINE_MAX))
    big = []
    for group, files, lim in (("glue", glue, GLUE_MAX), ("engine", engine, ENGINE_MAX)):
        for f in sorted(files, key=lambda p: -len(lines_of(p))):
            n = len(lines_of(f))
            print("  %5d  %s" % (n, os.path.relpath(f, ROOT)))
            if n > lim:
                big.append("%s (%d)" % (os.path.relpath(f, ROOT), n))
    verdict(not big, "file sizes" + (": " + ", ".join(big) if big else ""))

    fns = []
    for f in glue + engine:
        if f.endswith(".c"):
            fns += [(n, os.path.relpath(f, ROOT), name, line)
                    for name, line, n in functions(f)]
    fns.sort(reverse=True)
    print("longest functions (limit %d):" % FUNC_MAX)
    for n, f, name, line in fns[:12]:
        print("  %4d  %s:%d %s" % (n, f, line, name))
    long_fns = ["%s:%s (%d)" % (f, name, n) for n, f, name, line in fns if n > FUNC_MAX]
    verdict(not long_fns, "function sizes" + (": " + ", ".join(long_fns) if long_fns else ""))

    call_graph("glue", glue, objdir, verdict)
    call_graph("engine", engine, objdir, verdict)
    names = re.findall(r'\.name\s*=\s*"(\w+)"',
                       open(os.path.join(ROOT, "kernel", "counters.c")).read())
    ep = open(os.path.join(ROOT, "kernel", "engine", "ep.h")).read()
    block = ep[ep.index("#define MRE_COUNTERS(X)"):ep.index("struct mre_counters {")]
    names += re.findall(r"X\((\w+)\)", block)
    doc = open(os.path.join(ROOT, "Documentation", "mroce.rst")).read()
    doc = doc[doc.index("\nCounters\n========"):]
    listed = set(re.findall(r"^(\w+)\s{2,}", doc, re.M))
    missing = [n for n in names if n not in listed]
    print("counters: %d, documented in mroce.rst: %d" % (len(names), len(names) - len(missing)))
    verdict(not missing, "every counter documented" + (": missing " + ", ".join(missing) if missing else ""))
    # `rdma statistic show` gets a port's counters in one netlink message
    # of NLMSG_DEFAULT_SIZE (nldev.c, 6.1): per counter a nest, its name
    # and its u64. 3,676 bytes of them (112 counters) fitted in the guest;
    # 3,744 (114) gave "error: Message too long"
    size = sum(4 + ((4 + len(n) + 1 + 3) & ~3) + 12 for n in names)
    print("counters' entries in rdma statistic's message: %d bytes (limit %d)" % (size, STAT_MAX))
    verdict(size <= STAT_MAX, "counters fit one rdma statistic message")
    walk = doc[doc.index("\nPacket walk\n"):]
    walk = walk[:walk.index("\nLogging and debugging\n")]
    pairs = re.findall(r"``((?:kernel|include)/[\w/.-]+\.[ch])``\s+``(\w+)\(\)``", walk)
    wrong = []
    for path, fn in pairs:
        text = open(os.path.join(ROOT, path)).read()
        if not re.search(r"^\w[^;]*\b%s\(" % fn, text, re.M):
            wrong.append("%s %s()" % (path, fn))
    print("packet walk: %d steps name a file and a function" % len(pairs))
    verdict(pairs and not wrong, "the packet walk matches the code" +
            (": not found " + ", ".join(wrong) if wrong else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if check and failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
