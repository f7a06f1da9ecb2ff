#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The MetaRoCE Wireshark dissector (tools/wireshark/mroce.lua) against the
engine's own packets and against the wire header.

  tests/wireshark/check.py GEN OUTDIR

GEN (tests/wireshark/gen.c, built by `make wireshark-check`) writes one
packet of every type and DATA op with the engine's mre_wire_put(), and the
fields as sent; tshark decodes the pcap with the dissector (-T json); every
field sent must be decoded with its value, every packet as MROCE. Then the
two field lists: every member of struct mre_pkt in kernel/engine/wire.h
must be a field mroce.<member> of the dissector, and every field of the
dissector a member or one of the derived ones listed here, so that a field
added to one and not the other fails. Prints "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LUA = os.path.join(ROOT, "tools/wireshark/mroce.lua")
WIRE = os.path.join(ROOT, "kernel/engine/wire.h")
# dissector fields that are not members of struct mre_pkt: bits of flag
# fields, the blob's and SACKs' decoded parts, the payload
DERIVED = {"version", "flag_ack_req", "flag_retx", "df_first", "df_last",
           "df_imm", "df_solicit", "df_recv", "df_inv", "ff_global",
           "ff_persistent", "ff_mr", "sack_range",
           "tsn_sack_range", "blob_version", "blob_family", "blob_count",
           "plane_ipv4", "plane_ipv6"}
# members of struct mre_pkt that are no wire field: decode bookkeeping
NOT_ON_WIRE = {"hdr_len"}

passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok - " if ok else "not ok - ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


def pairs(kv):
    """a JSON object whose repeated keys (tshark: a field twice) keep every value"""
    d = {}
    for k, v in kv:
        if k in d and not isinstance(v, dict):
            d[k] = (d[k] if isinstance(d[k], list) else [d[k]]) + [v]
        else:
            d[k] = v
    return d


def flatten(d, out):
    for k, v in d.items():
        if isinstance(v, dict):
            flatten(v, out)
        elif k in out:
            out[k] = (out[k] if isinstance(out[k], list) else [out[k]]) + \
                     (v if isinstance(v, list) else [v])
        else:
            out[k] = v
    return out


def same(want, got):
    if isinstance(want, list):
        return isinstance(got, list) and [str(w) for w in want] == [str(g) for g in got]
    if isinstance(got, list):
        return False
    if isinstance(want, str):
        return want == got
    try:
        return int(got, 0) == want
    except (TypeError, ValueError):
        return False


def members():
    src = open(WIRE).read()
    body = src[src.index("struct mre_pkt {"):]
    body = body[:body.index("\n};")]
    names = set(re.findall(r"^\s*(?:const\s+)?u(?:8|16|32|64)\s+\*?(\w+)(?:\[[^\]]*\])?;", body, re.M))
    return names - NOT_ON_WIRE


def lua_fields():
    return set(re.findall(r'^f\("(\w+)"', open(LUA).read(), re.M))


def main():
    gen, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    pcap, exp = os.path.join(out, "mroce.pcap"), os.path.join(out, "mroce.expect")
    subprocess.run([gen, pcap, exp], check=True)
    js = subprocess.run(["tshark", "-n", "-X", "lua_script:" + LUA, "-r", pcap, "-T", "json"],
                        check=True, capture_output=True, text=True).stdout
    frames = json.loads(js, object_pairs_hook=pairs)
    want = [json.loads(l) for l in open(exp)]
    check(len(frames) == len(want), "tshark read %d frames of %d" % (len(frames), len(want)))
    for w, f in zip(want, frames):
        layers = f["_source"]["layers"]
        n = w.pop("frame")
        got = flatten(layers.get("mroce", {}), {})
        bad = [k for k, v in w.items() if not same(v, got.get(k))]
        check("mroce" in layers and not bad,
              "frame %d (type %s): %d fields decoded as sent%s" %
              (n, w.get("mroce.type"), len(w),
               "" if not bad else ": " + ", ".join("%s sent %s, decoded %s" % (k, w[k], got.get(k)) for k in bad)))
    m, l = members(), lua_fields()
    check(not (m - l), "every field of struct mre_pkt (%d) is a dissector field%s" %
          (len(m), "" if not (m - l) else ": missing " + ", ".join(sorted(m - l))))
    extra = l - m - DERIVED
    check(not extra, "every dissector field is a wire field or a derived one%s" %
          ("" if not extra else ": unknown " + ", ".join(sorted(extra))))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
