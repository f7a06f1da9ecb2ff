#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mroce(7), generated from Documentation/mroce.rst, and its check.

   scripts/man.py build [-o build/man/mroce.7] [--date YYYY-MM-DD] [--release VER]
   scripts/man.py check [PAGE] [--ko mroce.ko]

build: takes the sections of Documentation/mroce.rst a user needs (the
introduction and Usage, module parameters, device lifecycle and network
namespaces, what a device reports, planes, counters, rdma res, debugfs,
dynamic debug, and Tracepoints once mroce.rst has that section), turns
them into roff with a small converter of the reStructuredText that file
uses (sections, paragraphs, definition lists, simple tables, bullet
lists, literal blocks, inline markup; standard library only) and wraps
them in a man page: NAME, SYNOPSIS, FILES, SEE ALSO. The date is
SOURCE_DATE_EPOCH's, else the last commit of mroce.rst or this script,
else mroce.rst's mtime; the release is `git describe`, else "unknown".

check: holds the page to the code, one PASS/FAIL line per group, then
"N passed, N failed" (exit 1 on any failure): the page renders without a
warning (groff -man -ww -z, man --warnings, lexgrog), it is what build
makes of mroce.rst now, every module parameter (kernel/param.c, and
`modinfo -p` of mroce.ko when that is built and newer) is listed in
MODULE PARAMETERS with its type, default and writability, every counter
(kernel/counters.c and MRE_COUNTERS in kernel/engine/ep.h) is listed in
COUNTERS, every debugfs file and line kind (kernel/debugfs.c) in
DEBUGFS, every sysfs attribute (DEVICE_ATTR_* in kernel/*.c) in FILES,
and every driver attribute of rdma res (kernel/restrack.c) in RDMA RES,
every tracepoint of kernel/mroce_trace.h in TRACEPOINTS; and nothing is listed there that the code lacks.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import textwrap

from tally import Tally

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RST = os.path.join(ROOT, "Documentation", "mroce.rst")
DEFAULT_OUT = os.path.join(ROOT, "build", "man", "mroce.7")


class DocError(Exception):
    """mroce.rst is not what this script can turn into a man page."""


# --------------------------------------------------------------------------
# reStructuredText, the subset mroce.rst uses

ADORN = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
BORDER = re.compile(r"^=+( +=+)+\s*$")
BULLET = re.compile(r"^[*\-+] +")
ENUM = re.compile(r"^(\d+|[a-z]|[ivx]+)\. +")


class Section:
    def __init__(self, title, level, lineno):
        self.title, self.level, self.lineno = title, level, lineno
        self.body = []       # lines before the first subsection
        self.children = []


def split_sections(lines):
    """The document as a tree of sections (root: the text before the first)."""
    root = Section("", 0, 0)
    styles = []              # (char, overline) in order of first use
    stack = [root]
    i = 0
    while i < len(lines):
        line = lines[i]
        over = None
        if (ADORN.match(line) and i + 2 < len(lines) and lines[i + 1].strip()
                and ADORN.match(lines[i + 2]) and lines[i + 2][0] == line[0]
                and not BORDER.match(line)):
            over, title, i_next = line[0], lines[i + 1].strip(), i + 3
        elif (line.strip() and not line[0].isspace() and i + 1 < len(lines)
              and ADORN.match(lines[i + 1]) and not BORDER.match(lines[i + 1])
              and len(lines[i + 1].rstrip()) >= len(line.rstrip())
              and not ADORN.match(line)):
            title, i_next = line.strip(), i + 2
            over = ""
            style = (lines[i + 1][0], False)
        else:
            stack[-1].body.append(line)
            i += 1
            continue
        if over:
            style = (over, True)
        if style not in styles:
            styles.append(style)
        level = styles.index(style) + 1
        while stack[-1].level >= level:
            stack.pop()
        sec = Section(title, level, i + 1)
        stack[-1].children.append(sec)
        stack.append(sec)
        i = i_next
    return root


def find_section(sec, title):
    for c in sec.children:
        if c.title == title:
            return c
    return None


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def dedent_block(lines):
    ind = min((indent_of(x) for x in lines if x.strip()), default=0)
    return [x[ind:] for x in lines]


def take_indented(lines, i, base):
    """Lines from i on indented deeper than base (blank lines inside kept)."""
    out = []
    while i < len(lines) and (not lines[i].strip() or indent_of(lines[i]) > base):
        out.append(lines[i])
        i += 1
    while out and not out[-1].strip():
        out.pop()
        i -= 1
    return out, i


def parse_table(rows, where):
    """A simple table: [[cell, ...], ...] and the number of header rows."""
    border = rows[0]
    starts = [m.start() for m in re.finditer(r"=+", border)]
    body, header, out = rows[1:], 0, []
    for line in body:
        if BORDER.match(line):
            header = len(out)
            continue
        cells = []
        for k, s in enumerate(starts):
            e = starts[k + 1] if k + 1 < len(starts) else None
            cells.append(line[s:e].strip() if e else line[s:].strip())
        if not line.strip():
            raise DocError("%s: blank line inside a simple table" % where)
        if not cells[0] and out:
            for k, c in enumerate(cells):
                if c:
                    out[-1][k] = (out[-1][k] + " " + c).strip()
        else:
            out.append(cells)
    return out, header


def parse_blocks(lines, where):
    """Blocks: ("para", text) ("literal", lines) ("deflist", [(term, blocks)])
    ("bullets", [blocks]) ("enum", [blocks]) ("table", rows, header, width1)
    ("quote", blocks)."""
    blocks = []
    i = 0
    literal_next = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        ind = indent_of(line)
        if ind > 0:
            block, i = take_indented(lines, i, ind - 1)
            block = dedent_block(block)
            if literal_next:
                blocks.append(("literal", block))
            else:
                blocks.append(("quote", parse_blocks(block, where)))
            literal_next = False
            continue
        literal_next = False
        if line.startswith(".."):
            m = re.match(r"^\.\. +(code-block|code|sourcecode)::", line)
            body, i = take_indented(lines, i + 1, 0)
            if m:
                body = [x for x in body if not re.match(r"^\s+:\w[\w-]*:", x)]
                blocks.append(("literal", dedent_block(body)))
            continue
        if BORDER.match(line):
            rows = [line]
            i += 1
            borders = 1
            while i < len(lines):
                rows.append(lines[i])
                if BORDER.match(lines[i]):
                    borders += 1
                    nxt = lines[i + 1] if i + 1 < len(lines) else ""
                    if not nxt.strip():
                        i += 1
                        break
                i += 1
            else:
                raise DocError("%s: a simple table without its closing border" % where)
            rows = rows[:-1]
            cells, header = parse_table(rows, where)
            # the first column's width, for the list's tag indent
            blocks.append(("table", cells, header, len(rows[0].split()[0])))
            continue
        lm = BULLET.match(line) or ENUM.match(line)
        if lm:
            kind = "bullets" if BULLET.match(line) else "enum"
            items = []
            while i < len(lines) and (BULLET.match(lines[i]) if kind == "bullets"
                                      else ENUM.match(lines[i])):
                m = BULLET.match(lines[i]) or ENUM.match(lines[i])
                w = m.end()
                item = [lines[i][w:]]
                rest, i = take_indented(lines, i + 1, w - 1)
                item += [x[w:] if x.strip() else "" for x in rest]
                items.append(parse_blocks(item, where))
                while i < len(lines) and not lines[i].strip():
                    i += 1
            blocks.append((kind, items))
            continue
        if i + 1 < len(lines) and lines[i + 1].strip() and indent_of(lines[i + 1]) > 0:
            items = []
            while (i + 1 < len(lines) and lines[i].strip() and indent_of(lines[i]) == 0
                   and lines[i + 1].strip() and indent_of(lines[i + 1]) > 0):
                term = lines[i].strip()
                body, i = take_indented(lines, i + 1, 0)
                items.append((term, parse_blocks(dedent_block(body), where)))
                while i < len(lines) and not lines[i].strip():
                    i += 1
            blocks.append(("deflist", items))
            continue
        para = []
        while i < len(lines) and lines[i].strip() and indent_of(lines[i]) == 0:
            para.append(lines[i].strip())
            i += 1
        text = " ".join(para)
        if text.endswith("::"):
            literal_next = True
            text = text[:-2].rstrip() if text[:-2].endswith(" ") or text == "::" \
                else text[:-1]
            text = text.rstrip()
        if text:
            blocks.append(("para", text))
    return blocks


# --------------------------------------------------------------------------
# roff

def esc(text):
    """Plain text for roff: backslashes, non-ASCII as \\[uXXXX]."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ord(ch) > 126:
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def esc_code(text):
    """Literal text: also a minus for '-', so that it can be copied."""
    return esc(text).replace("-", "\\-")


INLINE = re.compile(
    r"``(?P<lit>.+?)``"
    r"|:(?P<role>[\w:-]+):`(?P<rtext>[^`]+)`"
    r"|`(?P<ref>[^`]+)`__?"
    r"|`(?P<interp>[^`]+)`"
    r"|\*\*(?P<strong>[^*]+)\*\*"
    r"|(?<![\w*])\*(?P<em>[^*\s][^*]*)\*(?![\w*])")


class Converter:
    def __init__(self, included):
        self.included = included    # rst section title -> man section name

    def inline(self, text):
        out, pos = [], 0
        for m in INLINE.finditer(text):
            out.append(esc(text[pos:m.start()]))
            pos = m.end()
            if m.group("lit") is not None:
                out.append("\\fB" + esc_code(m.group("lit")) + "\\fR")
            elif m.group("role") is not None:
                t = re.sub(r"^~|<.*>$", "", m.group("rtext")).strip()
                out.append("\\fB" + esc_code(t) + "\\fR")
            elif m.group("ref") is not None:
                ref = m.group("ref")
                um = re.match(r"^(.*?)\s*<([^>]+)>$", ref)
                if um:
                    out.append(esc(um.group(1)) + " <" + esc_code(um.group(2)) + ">")
                elif ref in self.included:
                    out.append("\\fI" + esc(ref) + "\\fR under " + esc(self.included[ref]))
                else:
                    out.append("\\fI" + esc(ref) + "\\fR in mroce.rst")
            elif m.group("interp") is not None:
                out.append("\\fI" + esc(m.group("interp")) + "\\fR")
            elif m.group("strong") is not None:
                out.append("\\fB" + esc(m.group("strong")) + "\\fR")
            else:
                out.append("\\fI" + esc(m.group("em")) + "\\fR")
        out.append(esc(text[pos:]))
        return "".join(out)

    @staticmethod
    def fill(text):
        """Wrapped for the source's sake; no line may start with . or '."""
        lines = textwrap.wrap(text, 78, break_long_words=False,
                              break_on_hyphens=False)
        return ["\\&" + x if x[:1] in ".'" else x for x in lines]

    def tag(self, term):
        """A list tag: a bare identifier in bold, anything else as written."""
        if re.match(r"^[\w.-]+$", term):
            return "\\fB" + esc_code(term) + "\\fR"
        return self.inline(term)

    def blocks(self, blocks, nested, after_tag=False):
        """roff lines. nested: inside a list item (paragraphs are .IP)."""
        out = []
        for n, b in enumerate(blocks):
            first = after_tag and n == 0
            kind = b[0]
            if kind == "para":
                if not first:
                    out.append(".IP" if nested else ".PP")
                out += self.fill(self.inline(b[1]))
            elif kind == "literal":
                out.append(".IP" if nested else ".PP")
                out += [".RS 4", ".EX"]
                for x in b[1]:
                    x = esc(x).replace("-", "\\-")
                    out.append("\\&" + x if x[:1] in ".'" else x)
                out += [".EE", ".RE"]
            elif kind in ("deflist", "table", "bullets", "enum"):
                if kind == "table":
                    rows, header = b[1], b[2]
                    if len(rows[0]) != 2:
                        raise DocError("a table of %d columns (only 2 are turned into "
                                       "a list)" % len(rows[0]))
                    items = [(self.tag(r[0]), [("para", r[1])] if r[1] else [])
                             for r in rows[header:]]
                    width = " %d" % (b[3] + 2)
                elif kind == "deflist":
                    items = [(self.tag(t), body) for t, body in b[1]]
                    width = ""
                else:
                    items = [(None, body) for body in b[1]]
                if nested or first:
                    out.append(".RS")
                for k, (tag, body) in enumerate(items):
                    if kind == "bullets":
                        out.append(".IP \\(bu 2")
                    elif kind == "enum":
                        out.append(".IP %d. 4" % (k + 1))
                    else:
                        out += [".TP" + width, tag]
                    out += self.blocks(body, True, after_tag=True)
                if nested or first:
                    out.append(".RE")
            elif kind == "quote":
                out.append(".RS")
                out += self.blocks(b[1], False)
                out.append(".RE")
        return out


# --------------------------------------------------------------------------
# the page

# man section, the rst section (a path of titles), its subsections left out;
# optional ones are taken only when mroce.rst has them
LAYOUT = [
    ("MODULE PARAMETERS", ["Usage", "Module parameters"], [], False),
    ("DEVICE LIFETIME", ["Device lifecycle"], ["Why our own list"], False),
    ("WHAT A DEVICE REPORTS", ["What a device reports"], [], False),
    ("PLANES", ["Planes"], [], False),
    ("COUNTERS", ["Counters"], [], False),
    ("RDMA RES", ["rdma res"], [], False),
    ("DEBUGFS", ["debugfs"], [], False),
    ("TRACEPOINTS", ["Tracepoints"], [], True),
    ("DYNAMIC DEBUG", ["Logging and debugging"], [], False),
]

FILES = [
    ("/sys/module/mroce/parameters/",
     "the module parameters (read-only except \\fBfill_mtu\\fR)"),
    ("/sys/class/infiniband/NAME/mroce_abi",
     "the kernel/provider ABI version of device NAME"),
    ("/sys/class/infiniband/NAME/datapath",
     "what runs the device's datapath: \\fBsoftware\\fR or an offload's name"),
    ("/sys/class/infiniband/NAME/ofl_cmds",
     "object commands the device's offload carried out (0 on software)"),
    ("/sys/class/infiniband/NAME/ofl_cmd_errors",
     "object commands the device's offload refused"),
    ("/sys/class/infiniband/NAME/ofl_events",
     "events of the device's offload that mroce took (QP or device fatal, CQ completion or error, SRQ limit)"),
    ("/sys/class/infiniband/NAME/planes",
     "the device's planes; write \\fBadd\\fR \\fIDEV\\fR or \\fBdel\\fR \\fIDEV\\fR"),
    ("/sys/class/infiniband/NAME/ports/1/hw_counters/",
     "the counters, one file each"),
    ("/sys/kernel/debug/mroce/NAME/ofl_counters",
     "the counters of the device's offload, by query, where it has them (root only)"),
    ("/sys/kernel/debug/mroce/NAME/parity",
     "the device's PARITY counters (root only)"),
    ("/sys/kernel/debug/mroce/NAME/peers",
     "the device's peers, connections and paths (root only)"),
    ("/etc/libibverbs.d/mroce.driver",
     "tells libibverbs to load the provider, libmroce-rdmav34.so"),
    ("/lib/modules/KVER/updates/mroce.ko",
     "the module, where \\fBmake install\\fR puts it"),
    ("/lib/modules/KVER/updates/mroce_swnic.ko",
     "the software NIC, an offload at the packets level (Documentation/offload.rst)"),
]

SEE_ALSO = ["rdma(8)", "rdma-link(8)", "rdma-statistic(8)", "rdma-resource(8)",
            "rdma-system(8)", "ibv_devices(1)", "ibv_devinfo(1)", "modprobe(8)",
            "modinfo(8)", "rxe(7)"]


def git(*args):
    try:
        r = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return r.stdout.strip() if r.returncode == 0 else ""


def page_date():
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    if sde:
        try:
            return datetime.datetime.fromtimestamp(
                int(sde), datetime.timezone.utc).strftime("%Y-%m-%d")
        except ValueError:
            raise DocError("SOURCE_DATE_EPOCH is not a number: %r" % sde)
    d = git("log", "-1", "--format=%cs", "--", "Documentation/mroce.rst", "scripts/man.py")
    if re.match(r"^\d{4}-\d\d-\d\d$", d):
        return d
    return datetime.datetime.fromtimestamp(
        os.path.getmtime(RST), datetime.timezone.utc).strftime("%Y-%m-%d")


def page_release():
    return git("describe", "--tags", "--always") or "unknown"


def quoted(s):
    return '"' + s.replace('"', '\\(dq') + '"'


def render(rst_text, date, release):
    root = split_sections(rst_text.split("\n"))
    if not root.children or root.children[0].level != 1:
        raise DocError("mroce.rst: no document title")
    doc = root.children[0]
    picked = []
    for man, path, drop, optional in LAYOUT:
        sec = doc
        for t in path:
            sec = find_section(sec, t)
            if sec is None:
                break
        if sec is None:
            if optional:
                continue
            raise DocError("mroce.rst has no section %s (the man page's %s)"
                           % (" / ".join(repr(t) for t in path), man))
        for d in drop:
            if not find_section(sec, d):
                raise DocError("mroce.rst: %r has no subsection %r to leave out"
                               % (sec.title, d))
        picked.append((man, sec, drop))
    usage = find_section(doc, "Usage")
    if usage is None:
        raise DocError("mroce.rst has no section 'Usage'")

    included = {"Usage": "DESCRIPTION"}
    for man, sec, drop in picked:
        stack = [sec]
        while stack:
            s = stack.pop()
            if s.title in drop:
                continue
            included[s.title] = man
            stack += s.children
    conv = Converter(included)

    def section_lines(sec, drop, where):
        out = conv.blocks(parse_blocks(sec.body, where), False)
        for c in sec.children:
            if c.title in drop:
                continue
            out += [".SS " + quoted(esc(c.title))]
            out += section_lines(c, drop, where + " / " + c.title)
        return out

    out = [
        ".\\\" SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause",
        ".\\\" Generated by scripts/man.py from Documentation/mroce.rst: edit that.",
        ".TH mroce 7 %s %s %s" % (date, quoted("mroce " + release), quoted("mroce manual")),
        ".\\\" long identifiers: no hyphenation, ragged right",
        ".nr HY 0",
        ".nh",
        ".ad l",
        ".SH NAME",
        "mroce \\- MetaRoCE soft RDMA device over any netdev: module parameters, "
        "sysfs, debugfs, counters",
        ".SH SYNOPSIS",
        ".nf",
        "\\fBmodprobe mroce\\fR [\\fIparam\\fR\\fB=\\fR\\fIvalue\\fR ...]",
        "\\fBrdma link add\\fR \\fINAME\\fR \\fBtype mroce netdev\\fR \\fIDEV\\fR",
        "\\fBrdma link delete\\fR \\fINAME\\fR",
        "\\fBrdma statistic show link\\fR \\fINAME\\fR\\fB/1\\fR",
        "\\fBcat /sys/kernel/debug/mroce/\\fR\\fINAME\\fR\\fB/peers\\fR",
        ".fi",
        ".SH DESCRIPTION",
    ]
    out += conv.blocks(parse_blocks(doc.body, "introduction"), False)
    out += conv.blocks(parse_blocks(usage.body, "Usage"), False)
    out += [".PP", "This page is made from \\fBDocumentation/mroce.rst\\fR of the source "
            "tree, which also has the design: the files, the locking rules, the "
            "walk of a packet through the code."]
    for man, sec, drop in picked:
        out.append(".SH " + quoted(man))
        out += section_lines(sec, drop, sec.title)
    out.append(".SH FILES")
    for path, what in FILES:
        out += [".TP", "\\fB" + esc_code(path) + "\\fR", what]
    out.append(".SH \"SEE ALSO\"")
    refs = SEE_ALSO + (["perf-trace(1)"] if "TRACEPOINTS" in included.values() else [])
    for k, r in enumerate(refs):
        name, num = re.match(r"^(.*)\((\w+)\)$", r).groups()
        out.append(".BR %s (%s)%s" % (esc_code(name), num, "," if k + 1 < len(refs) else ""))
    out += [".PP",
            "In the source tree: \\fBDocumentation/mroce.rst\\fR (this page and the "
            "design), \\fBprotocol.md\\fR (the MetaRoCE wire format), "
            "\\fBprovider.rst\\fR, \\fBtesting.rst\\fR."]
    # a heading starts a paragraph already
    out = [x for k, x in enumerate(out)
           if not (x == ".PP" and k and out[k - 1].startswith((".SH", ".SS")))]
    return "\n".join(out) + "\n"


def build(args):
    with open(RST, encoding="utf-8") as f:
        text = f.read()
    page = render(text, args.date or page_date(), args.release or page_release())
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(page)
    os.replace(tmp, args.output)
    print("man: %s (from %s)" % (os.path.relpath(args.output, ROOT),
                                 os.path.relpath(RST, ROOT)))
    return 0


# --------------------------------------------------------------------------
# the check

def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def code_params():
    """name -> (type, default as the doc writes it, writable) from param.c."""
    src = read("kernel/param.c")
    defines = {}
    for h in sorted(os.listdir(os.path.join(ROOT, "kernel"))):
        if h.endswith(".h"):
            for m in re.finditer(r"^#define\s+(\w+)\s+(\S+)", read("kernel/" + h), re.M):
                defines[m.group(1)] = m.group(2)
    out = {}
    for m in re.finditer(r"\bmodule_param(?:_named)?\(\s*(\w+)\s*,\s*(?:\w+\s*,\s*)?(\w+)\s*,\s*(\w+)\s*\)", src):
        name, typ, perm = m.groups()
        d = re.search(r"^static\s+\w+\s+%s\s*(?:=\s*([^;]+))?;" % name, src, re.M)
        val = (d.group(1).strip() if d and d.group(1) else "0") if d else None
        val = defines.get(val, val)
        if typ == "bool" and val is not None:
            val = {"true": "Y", "false": "N", "0": "N", "1": "Y"}.get(val, val)
        out[name] = (typ, val, int(perm, 8) & 0o222 != 0)
    descs = set(re.findall(r"\bMODULE_PARM_DESC\(\s*(\w+)", src))
    return out, descs


def code_counters():
    names = re.findall(r'\.name\s*=\s*"(\w+)"', read("kernel/counters.c"))
    ep = read("kernel/engine/ep.h")
    a, b = ep.find("#define MRE_COUNTERS(X)"), ep.find("struct mre_counters {")
    if a < 0 or b < 0:
        raise DocError("kernel/engine/ep.h: MRE_COUNTERS(X) or struct mre_counters not found")
    return names + re.findall(r"X\((\w+)\)", ep[a:b])


def man_sections(roff):
    """man section name -> its roff lines."""
    out, cur = {}, None
    for line in roff.split("\n"):
        m = re.match(r'^\.SH\s+"?([^"]*)"?\s*$', line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out


def plain(roff_text):
    """roff source text without escapes, for matching names."""
    s = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", roff_text)
    s = s.replace("\\%", "").replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    return s


def tags(lines):
    """The first word of every .TP tag."""
    out = []
    for k, line in enumerate(lines[:-1]):
        if line.startswith(".TP"):
            w = plain(lines[k + 1]).split()
            if w:
                out.append(w[0])
    return out, {plain(lines[k + 1]).split()[0]: plain(lines[k + 1])
                 for k, line in enumerate(lines[:-1])
                 if line.startswith(".TP") and plain(lines[k + 1]).split()}


def rendered(page, width=80):
    """The page as man shows it, plain text, and groff's complaints."""
    env = dict(os.environ, LC_ALL="C.UTF-8")
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=%dn" % width,
                        "-P-cbou", page], capture_output=True, text=True, env=env)
    return r.stdout, r.stderr.strip(), r.returncode


def rendered_sections(text):
    out, cur = {}, None
    for line in text.split("\n"):
        if re.match(r"^[A-Z][A-Z ]+$", line):
            cur = line.strip()
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def check(args):
    tally = Tally()
    verdict = tally.verdict

    page = args.page
    if not os.path.exists(page):
        print("man check: %s does not exist (make man)" % page, file=sys.stderr)
        return 2
    with open(page, encoding="ascii", errors="replace") as f:
        roff = f.read()

    # 1. it renders cleanly
    if not shutil.which("groff"):
        print("man check: groff not installed (scripts/setup.sh installs groff-base)",
              file=sys.stderr)
        return 2
    text, warn, rc = rendered(page)
    problems = []
    if rc != 0 or warn:
        problems.append("groff -ww: rc %d %s" % (rc, warn.replace("\n", "; ")))
    lint = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                          capture_output=True, text=True)
    if lint.returncode or lint.stderr.strip():
        problems.append("groff -z: " + lint.stderr.strip().replace("\n", "; "))
    if shutil.which("man"):
        r = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8",
                                    MAN_KEEP_FORMATTING="", MANPAGER="cat", PAGER="cat"))
        if r.returncode or r.stderr.strip():
            problems.append("man --warnings: " + r.stderr.strip().replace("\n", "; "))
    else:
        print("     (man not installed: man --warnings and lexgrog not run)")
    if shutil.which("lexgrog"):
        r = subprocess.run(["lexgrog", page], capture_output=True, text=True)
        if r.returncode or "mroce - " not in r.stdout:
            problems.append("lexgrog (whatis): " + (r.stdout + r.stderr).strip())
    th = re.search(r'^\.TH mroce 7 \d{4}-\d\d-\d\d "mroce [^"]+" "mroce manual"$', roff, re.M)
    if not th:
        problems.append('no .TH mroce 7 DATE "mroce VERSION" "mroce manual" line')
    verdict(not problems, "page renders without a warning (groff -ww, man, lexgrog)",
            "; ".join(problems))

    # 2. it is what mroce.rst makes now
    th_line = re.search(r"^\.TH .*$", roff, re.M)
    try:
        fresh = render(read("Documentation/mroce.rst"), "D", "R")
    except DocError as e:
        fresh = None
        verdict(False, "page is current with Documentation/mroce.rst", str(e))
    if fresh is not None:
        fresh = re.sub(r"^\.TH .*$", th_line.group(0) if th_line else "", fresh, count=1,
                       flags=re.M)
        verdict(fresh == roff, "page is current with Documentation/mroce.rst",
                "" if fresh == roff else "stale or edited by hand: run make man")

    secs = man_sections(roff)
    shown = rendered_sections(text)

    def listed(group, section, names, extra_ok=()):
        lines = secs.get(section)
        if lines is None:
            verdict(False, group, "no section %s in the page" % section)
            return {}
        tl, full = tags(lines)
        missing = [n for n in names if n not in tl]
        not_shown = [n for n in names if n in tl and
                     not re.search(r"(?<![\w])%s(?![\w])" % re.escape(n),
                                   shown.get(section, ""))]
        stale = [t for t in tl if t not in names and t not in extra_ok]
        detail = []
        if missing:
            detail.append("not listed in %s: %s" % (section, ", ".join(missing)))
        if not_shown:
            detail.append("listed but not in the rendered text: " + ", ".join(not_shown))
        if stale:
            detail.append("listed in %s, not in the code: %s" % (section, ", ".join(stale)))
        verdict(not detail, "%s (%d)" % (group, len(names)), "; ".join(detail))
        return full

    # 3. module parameters: names, type, default, writable
    params, descs = code_params()
    names = list(params)
    src_note = "kernel/param.c"
    ko_types = {}
    ko = args.ko
    if ko and os.path.exists(ko) and shutil.which("modinfo") and \
            os.path.getmtime(ko) >= os.path.getmtime(os.path.join(ROOT, "kernel/param.c")):
        r = subprocess.run(["modinfo", "-F", "parm", ko], capture_output=True, text=True)
        for x in r.stdout.splitlines():
            m = re.match(r"^(\w+):.*\((\w+)\)$", x)
            if not m:
                continue
            if m.group(1) not in names:
                names.append(m.group(1))
            ko_types[m.group(1)] = m.group(2)
        src_note += " and modinfo " + os.path.relpath(ko, ROOT)
    problems = ["%s has no MODULE_PARM_DESC" % n for n in params if n not in descs]
    problems += ["MODULE_PARM_DESC(%s) without module_param" % n for n in descs
                 if n not in params]
    verdict(params and not problems, "module parameters described in kernel/param.c (%d)"
            % len(params), "; ".join(problems) or ("" if params else "no module_param()"))
    print("     (parameters from %s)" % src_note)
    full = listed("module parameters listed", "MODULE PARAMETERS", names)
    wrong = []
    for n, (typ, val, writable) in params.items():
        term = full.get(n)
        if term is None:
            continue
        m = re.match(r"^%s \((\w+), default ([^,)]+)(, writable)?\)$" % re.escape(n),
                     term.strip())
        if not m:
            wrong.append("%s: term %r is not 'NAME (TYPE, default V[, writable])'" % (n, term))
            continue
        if m.group(1) != typ:
            wrong.append("%s: type %s, the code's %s" % (n, m.group(1), typ))
        if ko_types.get(n, typ) != m.group(1):
            wrong.append("%s: type %s, modinfo's %s" % (n, m.group(1), ko_types[n]))
        if val is not None and m.group(2) != val:
            wrong.append("%s: default %s, the code's %s" % (n, m.group(2), val))
        if bool(m.group(3)) != writable:
            wrong.append("%s: %s, the code's mode %s" % (
                n, "writable" if m.group(3) else "not writable",
                "writable" if writable else "read-only"))
    verdict(not wrong, "module parameters' type, default and mode", "; ".join(wrong))

    # 4. counters
    listed("counters listed", "COUNTERS", code_counters())

    # 5. debugfs: the files, and the kinds of line peers prints
    dbg = read("kernel/debugfs.c")
    dirs = re.findall(r'debugfs_create_dir\(\s*"(\w+)"', dbg)
    files = re.findall(r'debugfs_create_file\(\s*"(\w+)"', dbg)
    kinds = []
    for k in re.findall(r'seq_printf\(\s*m\s*,\s*"\s*([a-z]\w*)', dbg):
        if k not in kinds:
            kinds.append(k)
    paths = ["/sys/kernel/debug/%s/NAME/%s" % ("/".join(dirs), f) for f in files]
    body = shown.get("DEBUGFS", "")
    problems = [p + " not in DEBUGFS" for p in paths if p not in body]
    problems += [p + " not in FILES" for p in paths if p not in shown.get("FILES", "")]
    if not files:
        problems.append("no debugfs_create_file() found in kernel/debugfs.c")
    verdict(not problems, "debugfs files (%d)" % len(files), "; ".join(problems))
    listed("debugfs line kinds listed", "DEBUGFS", kinds)

    # 6. sysfs attributes
    attrs = []
    for f in sorted(os.listdir(os.path.join(ROOT, "kernel"))):
        if f.endswith(".c"):
            attrs += re.findall(r"\bDEVICE_ATTR(?:_RO|_RW|_WO)?\(\s*(\w+)", read("kernel/" + f))
    problems = ["/sys/class/infiniband/NAME/%s not in FILES" % a for a in attrs
                if "/sys/class/infiniband/NAME/" + a not in shown.get("FILES", "")]
    problems += ["%s not in the page's text" % a for a in attrs
                 if not re.search(r"\b%s\b" % a, "\n".join(
                     v for k, v in shown.items() if k not in ("FILES", "SYNOPSIS")))]
    verdict(attrs and not problems, "sysfs attributes (%d)" % len(attrs), "; ".join(problems))

    def both_ways(what, names, section, pattern, source):
        """every one of @names in @section, and nothing there matching @pattern
        that @source lacks"""
        body = shown.get(section, "")
        missing = [n for n in names if not re.search(r"\b%s\b" % n, body)]
        stale = sorted(set(re.findall(pattern, body)) - set(names))
        detail = []
        if missing:
            detail.append("not in %s: %s" % (section, ", ".join(missing)))
        if stale:
            detail.append("in %s, not in %s: %s" % (section, source, ", ".join(stale)))
        verdict(names and not detail, "%s (%d)" % (what, len(names)), "; ".join(detail))

    # 7. rdma res driver attributes
    drv = ["drv_" + n for n in re.findall(r'rdma_nl_put_driver_\w+\(\s*\w+\s*,\s*"(\w+)"',
                                           read("kernel/restrack.c"))]
    both_ways("rdma res attributes", drv, "RDMA RES", r"\bdrv_\w+", "kernel/restrack.c")

    # 8. tracepoints: every event of kernel/mroce_trace.h, and only those
    events = re.findall(r"^(?:TRACE_EVENT|DEFINE_EVENT|MROCE_CONN_EVENT)\((?:\w+,\s*)?(mroce_\w+)",
                        read("kernel/mroce_trace.h"), re.M)
    both_ways("tracepoints", events, "TRACEPOINTS",
              r"\bmroce_(?:conn|path|repath|loss|cwnd|rate|wc)\w*", "kernel/mroce_trace.h")

    return tally.done()


def main(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/man.py", description=__doc__.strip(),
        epilog="Build writes build/man/mroce.7 (make man); check is make man-check.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", metavar="{build,check}")
    b = sub.add_parser("build", help="write the man page")
    b.add_argument("-o", "--output", default=DEFAULT_OUT,
                   help="where (default build/man/mroce.7)")
    b.add_argument("--date", help="the page's date, YYYY-MM-DD "
                   "(default: SOURCE_DATE_EPOCH, else the last commit of mroce.rst)")
    b.add_argument("--release", help="the version in the footer (default: git describe)")
    c = sub.add_parser("check", help="hold the page to the code")
    c.add_argument("page", nargs="?", default=DEFAULT_OUT,
                   help="the page (default build/man/mroce.7)")
    c.add_argument("--ko", default=os.path.join(ROOT, "mroce.ko"),
                   help="the built module, for modinfo -p (default ./mroce.ko; "
                   "used only when it exists and is newer than kernel/param.c)")
    args = ap.parse_args(argv)
    if getattr(args, "date", None) and not re.match(r"^\d{4}-\d\d-\d\d$", args.date):
        ap.error("--date wants YYYY-MM-DD, not %r" % args.date)
    try:
        if args.cmd == "build":
            return build(args)
        if args.cmd == "check":
            return check(args)
    except DocError as e:
        print("man.py: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("man.py: %s" % e, file=sys.stderr)
        return 1
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
