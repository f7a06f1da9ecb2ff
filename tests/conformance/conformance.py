#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""MetaRoCE conformance suite, tier 1: the handshake and the demultiplexer;
tier 2 (data.py): data placement, ACKs, NAKs, duplicates, windows, atomics.

Drives an implementation under test (IUT) from outside, over UDP only, and
checks what it sends back (or does not) against the requirements of
Documentation/protocol.md, id by id. See tests/conformance/README.md.

    conformance.py [--iut HOST:PORT] [--ep PATH] [--out DIR] [--quiet]
    conformance.py --iut HOST:PORT --port PORT --src-pool A.B.C.D-N

Without --iut it starts `mroce-ep server PORT` on 127.0.0.1 itself.
With --src-pool (node per address): every tester socket binds the next
address of the pool and the MetaRoCE port, for an IUT that knows a node by
its address alone and replies to its MetaRoCE port (the kernel module).
"""
import argparse
import errno
import ipaddress
import json
import os
import random
import select
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mrwire as w  # noqa: E402

SILENCE = 0.2      # how long "nothing is sent" is waited for, seconds
ANSWER = 1.0       # how long an answer that must come is waited for
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

rng = random.Random()


def rand64():
    return rng.getrandbits(64) or 1


class CheckFailed(Exception):
    pass


class SetupError(Exception):
    """The run cannot go on: the pool is used up, or an address of it
    cannot be bound. Not a finding about the IUT."""


class Pool:
    """--src-pool: the local addresses a node-per-address run takes, each
    once (the IUT keeps state per address). A.B.C.D-N (the last field
    from D to N), A.B.C.D-E.F.G.H, a CIDR (its hosts), or one address;
    the IUT's own address is left out."""

    def __init__(self, spec, iut_host):
        self.spec = spec
        first, dash, last = spec.partition("-")
        try:
            if "/" in spec:
                net = ipaddress.ip_network(spec, strict=False)
                hosts = list(net.hosts()) if net.num_addresses > 2 else list(net)
            elif dash:
                lo = ipaddress.ip_address(first)
                if "." in last or ":" in last:
                    hi = ipaddress.ip_address(last)
                elif lo.version == 4:
                    hi = ipaddress.ip_address(first.rsplit(".", 1)[0] + "." + last)
                else:
                    hi = ipaddress.ip_address(first.rsplit(":", 1)[0] + ":" + last)
                if hi.version != lo.version or hi < lo:
                    raise ValueError("%s is not after %s" % (hi, lo))
                hosts = [ipaddress.ip_address(int(lo) + i)
                         for i in range(int(hi) - int(lo) + 1)]
            else:
                hosts = [ipaddress.ip_address(spec)]
        except ValueError as e:
            raise SystemExit("conformance: --src-pool %s: %s (A.B.C.D-N, "
                             "A.B.C.D-E.F.G.H or a CIDR)" % (spec, e))
        iut = iut_host.strip("[]")
        self.addrs = [str(a) for a in hosts if str(a) != iut]
        self.used = 0
        if not self.addrs:
            raise SystemExit("conformance: --src-pool %s holds no address "
                             "(but the IUT's)" % spec)

    def take(self):
        if self.used >= len(self.addrs):
            raise SetupError(
                "--src-pool %s is used up: its %d addresses are taken (each "
                "tester node needs an address of its own, never reused in a "
                "run); give a larger pool or fewer checks (--only)" %
                (self.spec, len(self.addrs)))
        self.used += 1
        return self.addrs[self.used - 1]


class Peer:
    """One tester socket: a source (address, port) of its own. By default
    an ephemeral port; in node-per-address mode (bind = (address of the
    pool, the MetaRoCE port)) an address of its own."""
    seen = []      # every datagram any Peer received from the IUT

    def __init__(self, iut, bind=None, node=False):
        self.iut = iut
        self.node = node   # the IUT is matched by address only (below)
        fam = socket.AF_INET6 if ":" in iut[0] else socket.AF_INET
        self.s = socket.socket(fam, socket.SOCK_DGRAM)
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        if not isinstance(bind, tuple):
            bind = (bind or "", 0)
        try:
            self.s.bind(bind)
        except OSError as e:
            self.s.close()
            if e.errno == errno.EADDRNOTAVAIL:
                raise SetupError("cannot bind %s:%d: not an address of this "
                                 "host (add the pool, e.g. `ip addr add %s/32 "
                                 "dev IFACE`)" % (bind[0], bind[1], bind[0]))
            if e.errno == errno.EADDRINUSE:
                raise SetupError("cannot bind %s:%d: in use (a MetaRoCE "
                                 "endpoint on this host holding the port on "
                                 "every address? run the suite in a netns "
                                 "of its own)" % bind[:2])
            raise SetupError("cannot bind %s:%d: %s" % (bind[0], bind[1], e))
        self.addr = self.s.getsockname()

    def close(self):
        self.s.close()

    def send(self, buf):
        self.s.sendto(buf, self.iut)

    def recv_for(self, secs):
        """Every datagram that arrives within secs: [(Pkt, from)]."""
        out, end = [], time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return out
            r, _, _ = select.select([self.s], [], [], left)
            if r:
                buf, src = self.s.recvfrom(65536)
                p = w.parse(buf)
                p["src"] = src
                Peer.seen.append(p)
                out.append(p)

    def expect(self, what, pred, secs=ANSWER):
        """The first datagram matching pred within secs; other datagrams
        received meanwhile are kept in self.others."""
        self.others = []
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise CheckFailed("no %s within %d ms" % (what, secs * 1000))
            for p in self.recv_for_one(left):
                if pred(p):
                    # node per address: the IUT's source port is a path's
                    # entropy (section 3), so only its address is known
                    if (p.src[0] != self.iut[0] if self.node
                            else p.src[:2] != self.iut[:2]):
                        raise CheckFailed("%s came from %s, not the IUT %s" %
                                          (what, p.src, self.iut))
                    return p
                self.others.append(p)

    def recv_for_one(self, secs):
        r, _, _ = select.select([self.s], [], [], secs)
        if not r:
            return []
        buf, src = self.s.recvfrom(65536)
        p = w.parse(buf)
        p["src"] = src
        Peer.seen.append(p)
        return [p]

    def silent(self, what, secs=SILENCE):
        got = self.recv_for(secs)
        if got:
            raise CheckFailed("%s drew %s within %d ms" % (
                what, ", ".join("%s (%d B)" % (p.name, p.len) for p in got),
                secs * 1000))


def is_type(t, **fields):
    return lambda p: p.type == t and all(p.get(k) == v for k, v in fields.items())


class Conn:
    """A connection the tester opened to the IUT (the IUT accepted)."""

    def __init__(self, peer, cid=None, isn=None):
        self.peer = peer
        self.cid = cid or rand64()
        self.isn = rng.getrandbits(32) if isn is None else isn
        self.psn = 0
        self.cookie = None

    def get_cookie(self):
        self.peer.send(w.connect(self.cid, self.isn))
        r = self.peer.expect("RETRY", is_type(w.RETRY, dst_cid=self.cid))
        self.cookie = r.cookie
        return r

    def open(self):
        if self.cookie is None:
            self.get_cookie()
        self.peer.send(w.connect(self.cid, self.isn, cookie=self.cookie))
        a = self.peer.expect("ACCEPT", is_type(w.ACCEPT, dst_cid=self.cid))
        self.accept = a
        self.iut_cid = a.src_cid
        return a

    def probe(self, psn=None, ts=None):
        """A PROBE on path 0; returns (psn, ts) sent."""
        if psn is None:
            psn = self.psn
        self.psn = max(self.psn, psn + 1)
        ts = rng.getrandbits(32) if ts is None else ts
        self.peer.send(w.probe(self.iut_cid, psn, ts=ts))
        return psn, ts

    def alive(self, what="the connection"):
        """A PROBE draws an ACK to us: the connection stands."""
        self.probe()
        self.peer.expect("ACK to a PROBE on %s" % what,
                         is_type(w.ACK, dst_cid=self.cid))


# ---------------------------------------------------------------------------
# the checks: each a function(ctx) that raises CheckFailed, or returns a
# note (None, or a string: "n/a: why" makes it not applicable)

CHECKS = []


def check(name, ids, text):
    def deco(fn):
        CHECKS.append((name, ids, text, fn))
        return fn
    return deco


@check("retry", ["MR-5.1-4", "MR-4.8-1", "MR-4.8-2"],
       "a CONNECT without a cookie draws one RETRY, no larger, to its source, "
       "naming its src_cid, cookie nonzero, and nothing else")
def c_retry(ctx):
    p = ctx.peer()
    cid = rand64()
    req = w.connect(cid, 1)
    p.send(req)
    r = p.expect("RETRY", is_type(w.RETRY))
    if r.dst_cid != cid:
        raise CheckFailed("RETRY dst_cid %x, not the CONNECT's src_cid %x" % (r.dst_cid, cid))
    if not r.cookie:
        raise CheckFailed("RETRY cookie 0")
    if r.len > len(req):
        raise CheckFailed("RETRY of %d bytes answers a %d-byte CONNECT" % (r.len, len(req)))
    if p.others:
        raise CheckFailed("also sent %s" % [q.name for q in p.others])
    p.silent("a CONNECT without a cookie (after its RETRY)")
    note = "RETRY %d B for a %d B CONNECT" % (r.len, len(req))
    if ctx.node:
        # the CONNECT's source port is the MetaRoCE port here: the
        # source port and the MetaRoCE port (5.1, step 2) are one port
        note += "; its source port is the MetaRoCE port %d: which port " \
            "the IUT answers is not told apart" % ctx.port
    return note


@check("retry-unlimited", ["MR-5.1-5"],
       "64 CONNECTs without a cookie, back to back, draw 64 RETRYs")
def c_retry_unlimited(ctx):
    p = ctx.peer()
    cids = [rand64() for _ in range(64)]
    for cid in cids:
        p.send(w.connect(cid, 0))
    want = set(cids)
    end = time.monotonic() + ANSWER
    while want and time.monotonic() < end:
        for q in p.recv_for_one(end - time.monotonic()):
            if q.type == w.RETRY:
                want.discard(q.dst_cid)
    if want:
        raise CheckFailed("%d of 64 CONNECTs drew no RETRY" % len(want))


@check("cookie-bound", ["MR-5.1-6"],
       "the cookie is bound to src_cid and to the source: one for another "
       "src_cid, or used from another source, draws a RETRY, not an ACCEPT")
def c_cookie_bound(ctx):
    p = ctx.peer()
    a, b = Conn(p), Conn(p)
    a.get_cookie()
    b.get_cookie()
    if a.cookie == b.cookie:
        raise CheckFailed("two src_cids got the same cookie")
    p.send(w.connect(b.cid, b.isn, cookie=a.cookie))
    q = p.expect("RETRY", lambda q: q.type in (w.RETRY, w.ACCEPT) and q.dst_cid == b.cid)
    if q.type != w.RETRY:
        raise CheckFailed("a cookie of another src_cid was taken (ACCEPT)")
    other = ctx.peer(alt=True)
    other.send(w.connect(a.cid, a.isn, cookie=a.cookie))
    q = other.expect("RETRY", lambda q: q.type in (w.RETRY, w.ACCEPT) and q.dst_cid == a.cid)
    if q.type != w.RETRY:
        raise CheckFailed("a cookie given to %s was taken from %s (ACCEPT)" %
                          (p.addr, other.addr))
    return "other source: %s:%d%s" % (other.addr[:2] + (
        " (another node)" if ctx.node else "",))


@check("accept", ["MR-5.1-8", "MR-4.4-2", "MR-4.1-2"],
       "a CONNECT with the RETRY's cookie draws an ACCEPT to its source "
       "naming our src_cid, with a nonzero CID of its own, cookie 0")
def c_accept(ctx):
    p = ctx.peer()
    c = Conn(p)
    c.get_cookie()
    req = w.connect(c.cid, c.isn, cookie=c.cookie)
    p.send(req)
    a = p.expect("ACCEPT", is_type(w.ACCEPT))
    if a.dst_cid != c.cid:
        raise CheckFailed("ACCEPT dst_cid %x, not our src_cid %x" % (a.dst_cid, c.cid))
    if not a.src_cid:
        raise CheckFailed("ACCEPT src_cid 0")
    if a.cookie:
        raise CheckFailed("ACCEPT cookie %x (must be 0)" % a.cookie)
    if a.src_cid == c.cid:
        raise CheckFailed("the IUT took our CID as its own")
    ctx.cids.append(a.src_cid)


@check("cid-distinct", ["MR-4.1-2"],
       "four connections get four distinct nonzero CIDs (their randomness "
       "cannot be shown from four samples)")
def c_cid_distinct(ctx):
    cids = []
    for _ in range(4):
        c = Conn(ctx.peer())
        c.open()
        cids.append(c.iut_cid)
    if 0 in cids or len(set(cids)) != len(cids):
        raise CheckFailed("CIDs %s" % ["%x" % x for x in cids])


@check("accept-again", ["MR-5.1-12", "MR-4.4-1"],
       "the same CONNECT again after its ACCEPT draws the same ACCEPT: "
       "same CID, same ISN")
def c_accept_again(ctx):
    c = Conn(ctx.peer())
    first = c.open()
    c.alive()           # the IUT may send after this; the ISN must not move
    for i in range(2):
        c.peer.send(w.connect(c.cid, c.isn, cookie=c.cookie))
        a = c.peer.expect("ACCEPT %d" % (i + 2), is_type(w.ACCEPT, dst_cid=c.cid))
        if (a.src_cid, a.isn) != (first.src_cid, first.isn):
            raise CheckFailed("ACCEPT %d: cid %x isn %u, first: cid %x isn %u" % (
                i + 2, a.src_cid, a.isn, first.src_cid, first.isn))


@check("connect-dst-cid", ["MR-4.1-3", "MR-4.4-2", "MR-11.1-3"],
       "a CONNECT with a nonzero dst_cid is dropped: no RETRY without a "
       "cookie, no ACCEPT with a valid one")
def c_connect_dst_cid(ctx):
    p = ctx.peer()
    c = Conn(p)
    c.get_cookie()
    p.send(w.connect(rand64(), 0, dst_cid=rand64()))
    p.send(w.connect(c.cid, c.isn, cookie=c.cookie, dst_cid=rand64()))
    p.silent("a CONNECT with a dst_cid")
    c.open()    # and the proper one still works


@check("probe-ack", ["MR-4.6-1", "MR-4.3-3", "MR-4.3-4", "MR-4.3-5",
                     "MR-4.3-6", "MR-4.3-7"],
       "a PROBE on an established connection is acknowledged at once: "
       "ack_path, psn_cum, sack bits, tsn_cum = our ISN, ts_echo")
def c_probe_ack(ctx):
    c = Conn(ctx.peer())
    c.open()
    steps = [(0, 1, set()), (2, 1, {0}), (1, 3, set())]   # psn -> psn_cum, sack bits
    for psn, cum, bits in steps:
        _, ts = c.probe(psn)
        t0 = time.monotonic()
        a = c.peer.expect("ACK to PROBE psn %d" % psn, is_type(w.ACK, dst_cid=c.cid))
        dt = time.monotonic() - t0
        if a.ack_path != 0:
            raise CheckFailed("ack_path %d, PROBE went on path 0" % a.ack_path)
        if a.psn_cum != cum:
            raise CheckFailed("after PSN %d: psn_cum %d, not %d" % (psn, a.psn_cum, cum))
        got = {i for i in range(w.SACK_BITS) if w.sack_bit(a.sack, i)}
        if got != bits:
            raise CheckFailed("after PSN %d: sack bits %s, not %s" % (psn, sorted(got), sorted(bits)))
        if a.tsn_cum != c.isn:
            raise CheckFailed("tsn_cum %u, not our ISN %u (no DATA sent)" % (a.tsn_cum, c.isn))
        if a.tsn_sack:
            raise CheckFailed("tsn_sack %x with no DATA sent" % a.tsn_sack)
        if a.ts_echo != ts:
            raise CheckFailed("ts_echo %u, not the PROBE's ts %u" % (a.ts_echo, ts))
    return "last ACK %.1f ms after its PROBE" % (dt * 1000)


@check("probe-reorder", ["MR-4.3-1"],
       "an ACK's psn field reports the reordering seen: PSN 1 after PSN 2 is 1")
def c_probe_reorder(ctx):
    c = Conn(ctx.peer())
    c.open()
    c.probe(0)
    c.peer.expect("ACK", is_type(w.ACK, dst_cid=c.cid))
    c.probe(2)
    c.peer.expect("ACK", is_type(w.ACK, dst_cid=c.cid))
    c.probe(1)
    a = c.peer.expect("ACK", is_type(w.ACK, dst_cid=c.cid, psn_cum=3))
    if a.psn != 1:
        raise CheckFailed("reordering distance %d, not 1" % a.psn)


@check("reset-unknown", ["MR-5.2-3", "MR-4.1-3"],
       "an ACK, a DATA, an ACCEPT and a CHALLENGE (32 B) for an unknown CID "
       "each draw a RESET to their source, dst_cid 0, naming that CID")
def c_reset_unknown(ctx):
    for what, mk in (("ACK", lambda x: w.ack(x)),
                     ("DATA", lambda x: w.data(x)),
                     ("ACCEPT", lambda x: w.connect(rand64(), 0, dst_cid=x, ptype=w.ACCEPT)),
                     ("CHALLENGE", lambda x: w.challenge(x, rand64()))):
        p = ctx.peer()
        x = rand64()
        req = mk(x)
        p.send(req)
        r = p.expect("RESET to a %s for an unknown CID" % what, is_type(w.RESET))
        if r.cid != x:
            raise CheckFailed("RESET to a %s names %x, not %x" % (what, r.cid, x))
        if r.dst_cid != 0:
            raise CheckFailed("RESET dst_cid %x, not 0" % r.dst_cid)
        if r.len > len(req):
            raise CheckFailed("RESET of %d B to a %d B %s" % (r.len, len(req), what))


@check("no-reply-short", ["MR-5.2-4"],
       "a PROBE (28 B, shorter than a RESET) and a RETRY for an unknown CID "
       "draw nothing")
def c_no_reply_short(ctx):
    p = ctx.peer()
    p.send(w.probe(rand64(), 0))
    p.silent("a PROBE for an unknown CID")
    p.send(w.retry(rand64(), rand64()))
    p.silent("a RETRY for an unknown CID")


@check("retry-established", ["MR-5.2-4", "MR-11.1-8"],
       "a RETRY on an established connection draws nothing and changes nothing")
def c_retry_established(ctx):
    c = Conn(ctx.peer())
    c.open()
    c.peer.send(w.retry(c.iut_cid, rand64()))
    c.peer.silent("a RETRY on an established connection")
    c.alive()


@check("reset-wrong-cid", ["MR-5.2-5"],
       "a RESET naming another CID, or the right one from another source, "
       "is refused: the connection still answers a PROBE")
def c_reset_wrong(ctx):
    c = Conn(ctx.peer())
    c.open()
    c.peer.send(w.reset(c.cid ^ 1))
    c.peer.send(w.reset(rand64()))
    c.peer.silent("a RESET naming another CID")
    c.alive("the connection after a RESET naming another CID")
    other = ctx.peer(alt=True)
    other.send(w.reset(c.cid))
    other.silent("a RESET from another source")
    c.alive("the connection after a RESET from another source")


@check("reset-right-cid", ["MR-5.2-5", "MR-5.1-8"],
       "a RESET from the peer naming its CID fails the connection (a PROBE "
       "then draws no ACK); a new CONNECT opens it again")
def c_reset_right(ctx):
    c = Conn(ctx.peer())
    c.open()
    c.alive()
    c.peer.send(w.reset(c.cid))
    c.peer.silent("the RESET")
    c.probe()
    c.peer.silent("a PROBE on a connection that was RESET")
    d = Conn(c.peer)
    d.open()
    d.alive("the reopened connection")


@check("reset-failed", ["MR-5.3-5", "MR-5.3-3"],
       "once our RESET failed the IUT's end, an ACK (as long as a RESET or "
       "longer) on it draws a RESET naming the IUT's CID, whether the IUT "
       "kept the failed connection or freed it")
def c_reset_failed(ctx):
    c = Conn(ctx.peer())
    c.open()
    c.alive()
    c.peer.send(w.reset(c.cid))
    c.peer.silent("the RESET")
    c.peer.send(w.ack(c.iut_cid, tsn_cum=c.isn))
    r = c.peer.expect("RESET", is_type(w.RESET))
    if r.cid != c.iut_cid:
        raise CheckFailed("RESET names %x, not the failed connection's %x" %
                          (r.cid, c.iut_cid))


@check("restart-challenge", ["MR-5.2-1", "MR-5.2-2"],
       "a CONNECT with another src_cid on an established connection draws "
       "an ACK to the old CID and no ACCEPT; the RESET naming the old CID "
       "proves the restart and the next CONNECT is accepted")
def c_restart(ctx):
    old = Conn(ctx.peer())
    old.open()
    new = Conn(old.peer)
    new.get_cookie()
    old.peer.send(w.connect(new.cid, new.isn, cookie=new.cookie))
    a = old.peer.expect("challenge ACK", lambda q: q.type in (w.ACK, w.ACCEPT))
    if a.type == w.ACCEPT:
        raise CheckFailed("the CONNECT of a new incarnation was accepted at once")
    if a.dst_cid != old.cid:
        raise CheckFailed("challenge ACK to %x, not the old CID %x" % (a.dst_cid, old.cid))
    old.peer.silent("the challenged CONNECT (after its ACK)")
    old.alive("the old incarnation after the challenge")
    old.peer.send(w.reset(old.cid))
    old.peer.silent("the RESET proving the restart")
    new.open()
    new.alive("the new incarnation")


@check("foreign-source", ["MR-11.1-7"],
       "a PROBE and an ACK with a known CID from another source are dropped: "
       "no ACK to either source, and no RESET (the CID is known)")
def c_foreign(ctx):
    c = Conn(ctx.peer())
    c.open()
    other = ctx.peer(alt=True)
    # the PROBE (28 B) would draw nothing for an unknown CID either; the
    # ACK (100 B) tells "dropped as foreign" from "taken for unknown": the
    # latter draws a RESET (5.2), the former must draw nothing (11.1)
    other.send(w.probe(c.iut_cid, 0))
    other.send(w.ack(c.iut_cid))
    got = other.recv_for(SILENCE) + c.peer.recv_for(0.01)
    if got:
        raise CheckFailed("a PROBE and an ACK from another source drew %s" %
                          [q.name for q in got])
    c.alive()
    if ctx.node:
        return "another source: another node, %s" % other.addr[0]


# Malformed datagrams: each one a valid packet but for one thing, and of a
# kind that would draw an answer if it were taken (a CONNECT: a RETRY
# naming its src_cid; a packet for an unknown CID: a RESET naming it). A
# reply to one of them is recognised by that id.
def malformed():
    out = []

    def conn(ids, why, **kw):
        cid = kw.pop("src_cid") if "src_cid" in kw else rand64()
        # a src_cid of 0 cannot be told from others by a RETRY's dst_cid:
        # a RETRY to 0 is matched by the id 0 all the same
        out.append((ids, why, ("cid", cid), w.connect(cid, 0, **kw)))

    def unk(ids, why, mk):
        x = rand64()
        out.append((ids, why, ("reset", x), mk(x)))

    v = ["MR-11.1-1"]
    conn(v, "CONNECT version 1", ver=1)
    conn(v, "CONNECT version 3", ver=3)
    conn(v, "CONNECT version 0", ver=0)
    for t in (0, 11, 15):
        cid = rand64()
        out.append((v, "type %d with a CONNECT body" % t, ("cid", cid),
                    w.connect(cid, 0, ptype=t)))
    conn(v + ["MR-4-1"], "CONNECT with reserved flag 0x04", flags=0x04)
    conn(v + ["MR-4-1"], "CONNECT with reserved flag 0x80", flags=0x80)
    unk(v + ["MR-4-1"], "ACK with reserved flag 0x10", lambda x: w.ack(x, flags=0x10))
    cid = rand64()
    out.append((v, "CONNECT cut to 47 bytes", ("cid", cid), w.connect(cid, 0)[:47]))
    out.append((v, "19-byte datagram", None, w.connect(rand64(), 0)[:19]))
    out.append((v, "empty datagram", None, b""))
    unk(v, "DATA cut to 51 bytes", lambda x: w.data(x)[:51])
    unk(v, "ACK cut to 99 bytes", lambda x: w.ack(x)[:99])
    ln = ["MR-11.1-2"]
    conn(ln, "CONNECT blob_len 8, no blob", blob_len=8)
    conn(ln, "CONNECT blob_len 0, 4 bytes after", blob=b"\1\4\1\0", blob_len=0)
    conn(ln, "CONNECT blob of 140 bytes (> 136)", blob=bytes(140))
    unk(ln, "ACK of 101 bytes", lambda x: w.ack(x) + b"\0")
    unk(ln, "PROBE of 40 bytes", lambda x: w.probe(x, 0) + bytes(12))
    unk(ln, "CHALLENGE of 36 bytes", lambda x: w.challenge(x, 1) + bytes(4))
    unk(ln + ["MR-4.2-2"], "DATA plen 8, 4 bytes of payload",
        lambda x: w.data(x, op=w.OP_SEND, dflags=w.DF_FIRST | w.DF_LAST | w.DF_RECV,
                         mlen=8, payload=bytes(4), plen=8))
    unk(ln + ["MR-4.2-2"], "SEND with 4100 bytes of payload",
        lambda x: w.data(x, op=w.OP_SEND, dflags=w.DF_FIRST | w.DF_LAST | w.DF_RECV,
                         mlen=4100, payload=bytes(4100)))
    unk(ln, "NOP with a payload",
        lambda x: w.data(x, mlen=4, payload=bytes(4)))
    f = ["MR-11.1-3"]
    conn(f, "CONNECT path 64", path=64)
    conn(f, "CONNECT src_cid 0", src_cid=0)
    conn(f, "CONNECT window_log2 3", window_log2=3)
    conn(f, "CONNECT window_log2 17", window_log2=17)
    conn(f, "CONNECT npaths 0", npaths=0)
    conn(f, "CONNECT npaths 65", npaths=65)
    conn(f + ["MR-4-1"], "CONNECT cflags 2", cflags=2)
    unk(f, "ACCEPT with a cookie",
        lambda x: w.connect(rand64(), 0, dst_cid=x, ptype=w.ACCEPT, cookie=5))
    unk(f, "ACK ack_path 64", lambda x: w.ack(x, ack_path=64))
    unk(f, "ACK nak 7", lambda x: w.ack(x, nak=7))
    unk(f, "ACK aflags 0x02", lambda x: w.ack(x, aflags=2))
    unk(f, "DATA op 0", lambda x: w.data(x, op=0, ext=b""))
    unk(f, "DATA op 11", lambda x: w.data(x, op=11, ext=b""))
    unk(f + ["MR-4.2-1"], "SEND offset + plen > mlen",
        lambda x: w.data(x, op=w.OP_SEND, dflags=w.DF_FIRST | w.DF_LAST | w.DF_RECV,
                         offset=4, mlen=6, payload=bytes(4)))
    unk(f, "NAK syndrome 1",
        lambda x: w.data(x, op=w.OP_NAK, ext=b"\0\0\0\1"))
    unk(f, "CHALLENGE nonce 0", lambda x: w.challenge(x, 0))
    unk(f, "CHALLENGE plane 8", lambda x: w.challenge(x, 1, plane=8))
    fl = ["MR-11.1-4"]
    unk(fl, "NOP without LAST", lambda x: w.data(x, dflags=w.DF_FIRST))
    unk(fl, "SEND without RECV",
        lambda x: w.data(x, op=w.OP_SEND, dflags=w.DF_FIRST | w.DF_LAST))
    unk(fl, "SEND with IMM and INV",
        lambda x: w.data(x, op=w.OP_SEND,
                         dflags=w.DF_FIRST | w.DF_LAST | w.DF_RECV | w.DF_IMM | w.DF_INV))
    unk(fl, "WRITE with IMM, without RECV",
        lambda x: w.data(x, op=w.OP_WRITE, dflags=w.DF_FIRST | w.DF_LAST | w.DF_IMM))
    unk(fl, "WRITE with INV",
        lambda x: w.data(x, op=w.OP_WRITE, dflags=w.DF_FIRST | w.DF_LAST | w.DF_INV))
    return out


def run_malformed(ctx):
    """One result per malformed datagram (they are sent together, then
    the silence is waited for once), plus two controls that must be
    answered, sent last."""
    p = ctx.peer()
    cases = malformed()
    for _, _, _, buf in cases:
        p.send(buf)
    ctl_cid, ctl_x = rand64(), rand64()
    p.send(w.connect(ctl_cid, 0))
    p.send(w.ack(ctl_x))
    got = p.recv_for(SILENCE * 1.5)
    ok_ctl = (any(q.type == w.RETRY and q.dst_cid == ctl_cid for q in got) and
              any(q.type == w.RESET and q.cid == ctl_x for q in got))
    res = []
    for ids, why, key, _ in cases:
        hit = [q for q in got if key and (
            (key[0] == "cid" and q.type in (w.RETRY, w.ACCEPT) and
             q.dst_cid == key[1]) or
            (key[0] == "reset" and q.type == w.RESET and q.cid == key[1]))]
        if hit:
            res.append((ids, why, "fail", "drew %s" % hit[0].name))
        elif not ok_ctl:
            res.append((ids, why, "fail", "the controls were not answered: "
                        "silence proves nothing"))
        else:
            res.append((ids, why, "pass", "nothing in %d ms" % (SILENCE * 1500)))
    stray = [q for q in got if not (
        (q.type == w.RETRY and q.dst_cid == ctl_cid) or
        (q.type == w.RESET and q.cid == ctl_x) or
        any(k and ((k[0] == "cid" and q.type in (w.RETRY, w.ACCEPT) and
                    q.dst_cid == k[1]) or
                   (k[0] == "reset" and q.type == w.RESET and q.cid == k[1]))
            for _, _, k, _ in cases))]
    res.append((["MR-11.1-1", "MR-11.1-2", "MR-11.1-3"],
                "no reply to any malformed datagram that names no id",
                "fail" if stray else "pass",
                "stray: %s" % [q.name for q in stray] if stray else ""))
    return res


TIER1 = len(CHECKS)     # the checks above; data.py's follow
import data  # noqa: E402  tier 2: the data checks, added to CHECKS
data.register(sys.modules[__name__])


# ---------------------------------------------------------------------------
# requirements not observable in this tier: sections 4, 5.1, 5.2 and 11.1
# ids that no check above covers are listed n/a, with the reason

NA_REASON = {
    "MR-5.1-1": "the IUT would have to open a connection (it only listens)",
    "MR-5.1-2": "the IUT would have to open a connection (it only listens)",
    "MR-5.1-3": "the IUT would have to open a connection (it only listens)",
    "MR-5.1-7": "the IUT would have to open a connection (it only listens)",
    "MR-5.1-9": "the IUT would have to open a connection (it only listens)",
    "MR-5.1-10": "the IUT would have to open a connection (it only listens)",
    "MR-5.1-11": "simultaneous open: the IUT would have to open a connection",
    "MR-5.1-13": "needs DATA to a connection that is not established: "
                 "the IUT establishes on the CONNECT (later tier)",
    "MR-5.2-6": "needs the IUT's drop_reopen counter, or a reopen loop "
                "timed against connect_ns (later tier)",
    "MR-11.1-5": "needs a source address no node can have (127/8, 0/8, ...): "
                 "not sendable from this host to a loopback IUT",
    "MR-11.1-6": "needs datagrams to a group or a broadcast address",
}
SECTIONS = ("4", "5.1", "5.2", "11.1")
TOPS = ("4", "6", "7", "8")   # and every subsection of these (tier 2)

# tier 2: the ids of sections 6, 7 and 8 that no check covers, and why
NA_TIER2 = [
    (("MR-6.1-", "MR-6.3-", "MR-6.4-", "MR-6.5-", "MR-6.6-", "MR-7.1-1",
      "MR-6.2-8", "MR-6.2-9", "MR-6.2-10", "MR-6.2-11", "MR-8.2-8", "MR-8.2-9",
      "MR-8.2-10", "MR-8.3-1", "MR-8.5-4", "MR-8.5-5", "MR-7.2-1", "MR-7.2-6"),
     "the IUT as a sender or requester: needs the IUT to post work "
     "(tier 3/4; mroce-ep's server only responds)"),
    (("MR-6.2-3", "MR-6.2-12"), "which path and source port the IUT's ACKs "
     "leave on: mroce-ep has one socket, no per-path port (tier 5)"),
    (("MR-6.2-5", "MR-6.2-6", "MR-6.2-7"),
     "ACK timing (delays, ack_freq): not timed in this tier"),
    (("MR-7.2-2", "MR-7.2-3", "MR-7.2-4", "MR-7.2-5", "MR-8.2-1"),
     "SEND/WRITE with immediate and RNR: mroce-ep's server posts no receives "
     "and has no WRITE with immediate"),
    (("MR-8.2-4", "MR-8.2-5", "MR-8.2-6", "MR-8.2-7"),
     "ATOMIC_WRITE and FLUSH: mroce-ep refuses them (ep/README); later tier"),
    (("MR-8.4-1",), "a busy READ slot: needs 128 outstanding READs held by "
     "the IUT (later tier)"),
    (("MR-8.5-6", "MR-8.5-7"), "UC streams: the side channel makes RC QPs only"),
]


def na_reason(rid):
    for ids, why in NA_TIER2:
        if any(rid == i or (i.endswith("-") and rid.startswith(i)) for i in ids):
            return why
    return NA_REASON.get(rid)


def all_reqs():
    """{id: (level, sentence)} from scripts/reqs.py --list, when the suite
    runs inside the tree; else {} (only the checked ids are reported)."""
    tool = os.path.join(TOP, "scripts", "reqs.py")
    if not os.path.exists(tool):
        return {}
    out = subprocess.run([sys.executable, tool, "--list"], capture_output=True,
                         text=True).stdout
    reqs = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 3 and f[0].startswith("MR-"):
            reqs[f[0]] = (f[1], f[2])
    return reqs


# levels of the ids the checks name, for a run outside the tree
LEVELS = {"MR-4.3-1": "SHOULD", "MR-5.2-3": "SHOULD", "MR-5.3-5": "SHOULD",
          "MR-5.3-3": "MAY"}


class Ctx:
    """What a check gets: peer() makes its tester sockets. By default each
    a new ephemeral port (alt: on --alt-src); with a pool (node per
    address) each the next address of the pool on the MetaRoCE port, and
    "another source" is just another peer."""

    def __init__(self, iut, alt_src, pool=None, port=None):
        self.iut = iut
        self.alt_src = alt_src
        self.pool = pool
        self.port = port
        self.node = pool is not None
        self.peers = []
        self.cids = []

    def peer(self, alt=False):
        if self.pool:
            p = Peer(self.iut, (self.pool.take(), self.port), node=True)
        else:
            p = Peer(self.iut, self.alt_src if alt else None)
        self.peers.append(p)
        return p

    def close(self):
        for p in self.peers:
            p.close()
        self.peers = []


def run(iut, alt_src, only=None, tier=2, pool=None, port=None):
    """([(ids, check name, result, note)], a SetupError that stopped the
    run or None)"""
    results = []
    todo = [c for c in CHECKS[:TIER1 if tier == 1 else len(CHECKS)]
            if not only or c[0] in only]
    if not only or "malformed" in only:
        todo.append(("malformed", None, None, None))
    for name, ids, text, fn in todo:
        ctx = Ctx(iut, alt_src, pool, port)
        try:
            if fn is None:
                for mids, why, res, note in run_malformed(ctx):
                    results.append((mids, "malformed: " + why, res, note))
                continue
            note = fn(ctx) or ""
            res = "pass"
        except CheckFailed as e:
            res, note = "fail", str(e)
        except SetupError as e:
            # not the IUT's fault: the run stops here, and says why
            results.append((ids or ["MR-11.1-1"], name, "fail",
                            "not run: %s" % e))
            return results, e
        finally:
            ctx.close()
        results.append((ids, name, res, note))
    # the sender's rules on everything the IUT sent during the run
    bad = [(rid, "%s: %s" % (p.name, why)) for p in Peer.seen for rid, why in p.bad]
    for rid in ("MR-4.1-1", "MR-4-1", "MR-4.2-1", "MR-4.2-2"):
        mine = [t for r, t in bad if r == rid]
        results.append(([rid], "every datagram the IUT sent (%d)" % len(Peer.seen),
                        "fail" if mine else "pass", "; ".join(sorted(set(mine)))[:300]))
    return results, None


def start_ep(ep):
    """mroce-ep server on a free port of 127.0.0.1: (process, port)."""
    for _ in range(5):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        proc = subprocess.Popen([ep, "server", str(port)], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        line = proc.stdout.readline()
        if "listening" in line:
            return proc, port
        proc.wait()
    raise SystemExit("conformance: could not start %s" % ep)


def write_results(outdir, rows, results, meta, title):
    """Write results.tsv and results.json to outdir and print the table and
    the summary (rows: (id, level, result, note); results: (ids, check,
    result, note)). Returns the ids of the MUSTs that failed. Tier 3
    (mitm.py) reports through it too."""
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "results.tsv"), "w") as f:
        f.write("id\tlevel\tresult\tnote\n")
        for r in rows:
            f.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in r) + "\n")
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(meta, requirements=[dict(zip(("id", "level", "result", "note"), r))
                                           for r in rows],
                       checks=[{"name": c, "ids": i, "result": r, "note": n}
                               for i, c, r, n in results]), f, indent=1)
    print("# MetaRoCE conformance, %s\n" % title)
    print("| requirement | level | result | checks / note |")
    print("|---|---|---|---|")
    for rid, lv, res, note in rows:
        print("| %s | %s | %s | %s |" % (rid, lv, res, note.replace("|", "/")))
    np = sum(1 for r in rows if r[2] == "pass")
    nf = sum(1 for r in rows if r[2] == "fail")
    nc = sum(1 for r in results if r[2] == "fail")
    print("\nchecks: %d run, %d failed; requirements: %d n/a; results in %s" % (
        len(results), nc, sum(1 for r in rows if r[2] == "n/a"), outdir))
    print("%d passed, %d failed" % (np, nf))
    return [r[0] for r in rows if r[2] == "fail" and r[1] == "MUST"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iut", help="HOST:PORT of the implementation under test "
                    "(default: start mroce-ep server on 127.0.0.1)")
    ap.add_argument("--ep", default=os.path.join(TOP, "build", "ep", "mroce-ep"))
    ap.add_argument("--alt-src", default=None,
                    help="a second local address for the checks that need "
                    "'another source' (default: the same address, another "
                    "port; not with --src-pool)")
    ap.add_argument("--src-pool", default=None, metavar="POOL",
                    help="node per address: local addresses, one per tester "
                    "node, each used once in a run (A.B.C.D-N, A.B.C.D-E.F.G.H "
                    "or a CIDR); for an IUT that knows a node by its address "
                    "alone and replies to its MetaRoCE port (the kernel module)")
    ap.add_argument("--port", type=int, default=None,
                    help="with --src-pool: the MetaRoCE port every tester "
                    "socket binds, where the IUT's replies go (default: the "
                    "IUT's port)")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "conformance"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--only", action="append", help="run only this check (repeatable)")
    ap.add_argument("--tier", type=int, choices=(1, 2), default=2,
                    help="1: the handshake and the demultiplexer only (an IUT "
                    "without mroce-ep's side channel, such as the kernel module); "
                    "2: also the data checks (default)")
    args = ap.parse_args()
    if args.src_pool and args.alt_src:
        ap.error("--alt-src has no use with --src-pool: another source is "
                 "the next address of the pool")
    if args.port is not None and not args.src_pool:
        ap.error("--port needs --src-pool (one address cannot hold the "
                 "port for several tester nodes at once)")
    if args.src_pool and args.port is None and not args.iut:
        ap.error("--src-pool with the suite's own mroce-ep needs --port: "
                 "mroce-ep holds its port on every address")
    if args.port is not None and not 0 < args.port < 65536:
        ap.error("--port %d out of range" % args.port)

    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    rng.seed(seed)
    proc = None
    if args.iut:
        host, _, port = args.iut.rpartition(":")
        iut = (host.strip("[]"), int(port))
        name = args.iut
    else:
        proc, port = start_ep(args.ep)
        iut = ("127.0.0.1", port)
        name = "mroce-ep server %d" % port
    pool = None
    if args.src_pool:
        pool = Pool(args.src_pool, iut[0])
        port = args.port if args.port is not None else iut[1]
        name += " (node per address: %s, port %d)" % (args.src_pool, port)
    t0 = time.monotonic()
    try:
        results, err = run(iut, args.alt_src, args.only, args.tier, pool,
                           args.port if args.port is not None else iut[1])
    finally:
        if proc:
            proc.terminate()
            proc.wait()
    if pool:
        print("conformance: %d of the %d addresses of --src-pool used" %
              (pool.used, len(pool.addrs)), file=sys.stderr)
    rc = report(results, name, seed, args.out, time.monotonic() - t0,
                "node per address" if pool else "port per node")
    if err:
        print("conformance: stopped: %s" % err, file=sys.stderr)
        rc = 2
    sys.exit(rc)


def report(results, name, seed, outdir, secs, mode="port per node"):
    reqs = all_reqs()

    def level(rid):
        return reqs.get(rid, (LEVELS.get(rid, "MUST"),))[0]

    per = {}
    for ids, check_name, res, note in results:
        for rid in ids:
            per.setdefault(rid, []).append((check_name, res, note))
    rows = []
    for rid in sorted(set(per) | {r for r in reqs if r.split("-")[1] in SECTIONS
                                   or r.split("-")[1].split(".")[0] in TOPS},
                      key=lambda r: [int(x) for x in r[3:].replace("-", ".").split(".")]):
        if rid in per:
            fails = [c for c in per[rid] if c[1] == "fail"]
            res = "fail" if fails else "pass"
            note = "; ".join("%s: %s" % (c[0], c[2]) for c in fails) or \
                   ", ".join(c[0] for c in per[rid])
        else:
            res = "n/a"
            note = na_reason(rid) or "not observable in tiers 1-2 (planes, " \
                "UD, or the IUT's own state; see README)"
        rows.append((rid, level(rid), res, note))

    nmust = write_results(outdir, rows, results,
                          {"iut": name, "seed": seed, "tier": 2, "mode": mode},
                          "tiers 1-2: %s (seed %d, %.1f s)" % (name, seed, secs))
    return 1 if nmust else 0


if __name__ == "__main__":
    main()
