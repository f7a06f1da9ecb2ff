#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The requirements of Documentation/protocol.md and their table.

   scripts/reqs.py --check [FILE]   hold the ids to the rules of section 1.1
   scripts/reqs.py --table [FILE]   print the rows of Appendix A
   scripts/reqs.py --list [FILE]    print each id, its level and its sentence

A requirement is a sentence of protocol.md with MUST, MUST NOT, SHOULD,
SHOULD NOT or MAY in capitals that ends with its id in brackets,
[MR-<section>-<n>]. In a list, an item without a key word takes the
sentence that introduces the list (the text before the colon) as its
beginning. Appendix A has one table row per id: id, section, level
(MUST, SHOULD or MAY; MUST NOT counts as MUST, SHOULD NOT as SHOULD),
a summary and whether it is observable on the wire (yes, no, partly).
The summary and observability columns are written by hand; --table
prints the rows in the order of the text, keeping the summary and
observability of the rows the appendix has and leaving new ones to be
written (TODO).

--check, one PASS/FAIL line per group, then "N passed, N failed" (exit 1
on any failure):
  * every [MR-...] is well formed (MR-<n>[.<m>]-<k>, k from 1);
  * ids are unique;
  * the section of an id is that of the heading it stands under;
  * the sentence of each id has a key word (its level);
  * no sentence outside section 1.1 and the appendix has a key word
    without an id (a list's introduction whose items carry ids excepted);
  * every id of the text has a row in Appendix A, every row's id is in
    the text, and a row's section and level are those of the text;
  * every row says yes, no or partly, and has a summary.
Standard library only.
"""
import os
import re
import sys

from tally import Tally

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "Documentation", "protocol.md")

ANY_ID = re.compile(r"\[MR[^\]]*\]")
GOOD_ID = re.compile(r"^\[MR-(\d+(?:\.\d+)?)-([1-9]\d*)\]$")
KEYWORD = re.compile(r"\b(MUST|SHOULD|MAY)\b")
# a sentence ends at . ! or ? followed by space and what may begin one
BOUNDARY = re.compile(r"(?<!\.)[.!?]\)?\s+(?=[A-Z`*\"(\[])")
LIST_ITEM = re.compile(r"^(\* |\d+\. )")
APPENDIX = re.compile(r"^## Appendix A\b")


def level_of(text):
    words = set(KEYWORD.findall(text))
    for w in ("MUST", "SHOULD", "MAY"):
        if w in words:
            return w
    return None


def units(lines):
    """(section, kind, text, lineno) for each paragraph, list item and table
    cell before Appendix A; kind is 'para', 'item' or 'cell'."""
    out = []
    sec = None
    code = False
    cur = None

    def flush():
        nonlocal cur
        if cur:
            out.append(cur)
        cur = None

    for no, line in enumerate(lines, 1):
        if APPENDIX.match(line):
            break
        if line.startswith("```"):
            flush()
            code = not code
            continue
        if code:
            continue
        m = re.match(r"^## (\d+)\. ", line) or re.match(r"^### (\d+\.\d+) ", line)
        if m:
            flush()
            sec = m.group(1)
            continue
        if line.startswith("#") or not line.strip():
            flush()
            continue
        if line.startswith("|"):
            flush()
            if re.match(r"^\|[-| :]+\|$", line.strip()):
                continue
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            for c in cells:
                out.append([sec, "cell", c.strip(), no])
            continue
        if line.startswith("    ") and (cur is None or cur[1] == "para"):
            flush()          # an indented code line
            continue
        if LIST_ITEM.match(line):
            flush()
            cur = [sec, "item", LIST_ITEM.sub("", line).strip(), no]
            continue
        if cur is None:
            cur = [sec, "para", line.strip(), no]
        else:
            cur[2] += " " + line.strip()
    flush()
    return out


def sentences_before(text, end):
    """split text[:end] into sentences; the last is the one that ends at end"""
    seg = text[:end].rstrip()
    cuts = [0] + [m.end() for m in BOUNDARY.finditer(seg)]
    return [seg[a:b].strip() for a, b in zip(cuts, cuts[1:] + [len(seg)])]


def parse(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    reqs = []          # (id, section, level, sentence, lineno)
    malformed = []
    stray = []         # (lineno, sentence): key word without id
    lead = None        # the introduction of the current list
    lead_used = False
    us = units(lines)
    for idx, (sec, kind, text, no) in enumerate(us):
        if kind == "para":
            if lead is not None and not lead_used and KEYWORD.search(lead[1]):
                stray.append((lead[0], lead[1]))
            lead = (no, text) if text.rstrip().endswith(":") or re.search(r"\]:$", text) else None
            lead_used = False
        pos = 0
        for m in ANY_ID.finditer(text):
            rid = m.group(0)
            g = GOOD_ID.match(rid)
            if not g:
                malformed.append((no, rid))
            sents = sentences_before(text[pos:], m.start() - pos)
            for s in sents[:-1]:
                if KEYWORD.search(s) and sec != "1.1":
                    stray.append((no, s))
            sent = sents[-1] if sents else ""
            if kind == "item" and not KEYWORD.search(sent) and lead is not None:
                sent = lead[1].rstrip(":").strip() + " ... " + sent
                lead_used = True
            elif kind == "item" and lead is not None:
                lead_used = True
            reqs.append((rid.strip("[]"), sec, level_of(sent), sent, no,
                         g.group(1) if g else None))
            pos = m.end()
        # the tail after the last id
        tail = text[pos:]
        tail_s = [s for s in sentences_before(tail, len(tail)) if s]
        if sec == "1.1":
            continue
        if kind == "para" and tail_s and text.rstrip().endswith(":") and pos == 0:
            continue     # a list's introduction: judged by its items
        for s in tail_s:
            if KEYWORD.search(s):
                stray.append((no, s))
    if lead is not None and not lead_used and KEYWORD.search(lead[1]):
        stray.append((lead[0], lead[1]))
    return lines, reqs, malformed, stray


def appendix_rows(lines):
    rows = {}
    order = []
    inside = False
    for no, line in enumerate(lines, 1):
        if APPENDIX.match(line):
            inside = True
            continue
        if inside and line.startswith("## "):
            break
        if not inside or not line.startswith("| MR-"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) != 5:
            rows.setdefault("bad", []).append((no, line))
            continue
        rows[cells[0]] = (cells[1], cells[2], cells[3], cells[4], no)
        order.append(cells[0])
    return rows, order


def check(path):
    tally = Tally()
    verdict = tally.verdict

    lines, reqs, malformed, stray = parse(path)
    verdict(not malformed, "ids well formed (MR-<section>-<n>)",
            "; ".join("line %d: %s" % x for x in malformed))
    seen = {}
    dups = []
    for r in reqs:
        if r[0] in seen:
            dups.append("%s at lines %d and %d" % (r[0], seen[r[0]], r[4]))
        seen.setdefault(r[0], r[4])
    verdict(not dups, "ids unique (%d ids)" % len(reqs), "; ".join(dups))
    wrong = ["%s under section %s (line %d)" % (r[0], r[1], r[4])
             for r in reqs if r[5] is not None and r[5] != r[1]]
    verdict(not wrong, "each id's section is the heading it stands under", "; ".join(wrong))
    nokw = ["%s (line %d): %s" % (r[0], r[4], r[3][:70]) for r in reqs if r[2] is None]
    verdict(not nokw, "each id's sentence has MUST, SHOULD or MAY", "; ".join(nokw))
    verdict(not stray, "no key word without an id",
            "; ".join("line %d: %s" % (n, s[:70]) for n, s in stray))

    rows, _ = appendix_rows(lines)
    bad = rows.pop("bad", [])
    verdict(not bad, "appendix rows have 5 columns", "; ".join("line %d" % n for n, _ in bad))
    missing = [r[0] for r in reqs if r[0] not in rows]
    verdict(not missing, "every id has a row in Appendix A", " ".join(missing))
    extra = [k for k in rows if k not in seen]
    verdict(not extra, "every row of Appendix A names an id of the text", " ".join(extra))
    diff = []
    for r in reqs:
        row = rows.get(r[0])
        if not row:
            continue
        if row[0] != r[1]:
            diff.append("%s: section %s in the table, %s in the text" % (r[0], row[0], r[1]))
        if row[1] != r[2]:
            diff.append("%s: level %s in the table, %s in the text" % (r[0], row[1], r[2]))
    verdict(not diff, "table sections and levels match the text", "; ".join(diff))
    obs = ["%s: '%s'" % (k, v[3]) for k, v in rows.items() if v[3] not in ("yes", "no", "partly")]
    empty = [k for k, v in rows.items() if not v[2] or v[2] == "TODO"]
    verdict(not obs and not empty, "every row has a summary and says yes, no or partly",
            "; ".join(obs + ["%s: no summary" % k for k in empty]))
    levels = {}
    for r in reqs:
        levels[r[2]] = levels.get(r[2], 0) + 1
    print("requirements: %d (%s)" % (len(reqs), ", ".join(
        "%s %d" % (k, levels.get(k, 0)) for k in ("MUST", "SHOULD", "MAY"))))
    return tally.done()


def table(path):
    lines, reqs, _, _ = parse(path)
    rows, _ = appendix_rows(lines)
    rows.pop("bad", None)
    print("| id | section | level | summary | observable on the wire |")
    print("|---|---|---|---|---|")
    for r in reqs:
        old = rows.get(r[0])
        summary = old[2] if old else "TODO"
        obs = old[3] if old else "TODO"
        print("| %s | %s | %s | %s | %s |" % (r[0], r[1], r[2], summary, obs))
    return 0


def listing(path):
    _, reqs, _, _ = parse(path)
    for r in reqs:
        print("%s\t%s\t%s" % (r[0], r[2], r[3]))
    return 0


def main(argv):
    if not argv or argv[0] not in ("--check", "--table", "--list") or len(argv) > 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path = argv[1] if len(argv) > 1 else DOC
    return {"--check": check, "--table": table, "--list": listing}[argv[0]](path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
