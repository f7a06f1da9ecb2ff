# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""MetaRoCE conformance suite, tier 2: data transfer.

The suite is the requester, the IUT the responder. A check opens a
connection with the tier-1 handshake, then learns a stream (the IUT's QP
number), an rkey and the address of a buffer through the IUT's side
channel, and sends WRITE, READ and ATOMIC requests it builds itself
(mrwire.py), in the orders and on the paths it chooses. What the IUT
placed is observed by READing it back over the wire.

The side channel is mroce-ep's (ep/tool.c): TCP to the IUT's UDP port
number; the suite sends 16 bytes (magic "mep1", our UDP port, our stream
number, the buffer size, each 32 bits in network order), the IUT answers
20 (magic, its stream number, the rkey, the buffer address high and low
32 bits) and keeps the stream and the buffer until the TCP connection
closes. mroce-ep serves one side channel at a time, so a check closes
its session before it opens another.

register(cf) adds the checks to conformance.py's list (cf is that module).
"""
import random
import socket
import struct
import time

import mrwire as w

MAGIC = 0x6d657031
SIZE = 65536          # the buffer each session asks for
CHUNK = 1024          # payload per WRITE packet (several packets per message)


class Link:
    """The connection as a requester sees it: our TSNs and PSNs going out,
    the IUT's DATA coming back (acknowledged at once, so that the IUT does
    not resend), every ACK the IUT sent."""

    def __init__(self, cf, ctx, peer=None):
        self.cf = cf
        self.peer = peer or ctx.peer()
        self.conn = cf.Conn(self.peer)
        a = self.conn.open()
        self.cid = a.src_cid
        self.npaths = min(8, a.npaths)
        self.window = 1 << a.window_log2     # the IUT's TSN window (7.1)
        self.tsn = self.conn.isn              # our next TSN
        self.psn = [0] * self.npaths          # our next PSN per path
        self.ts = cf.rng.getrandbits(31) | 1
        self.acks, self.datas = [], []
        self.rx_tsn, self.rx_base = set(), a.isn
        self.rx_psn = [set() for _ in range(64)]

    def next_ts(self):
        self.ts = (self.ts + 1) & 0xffffffff or 1
        return self.ts

    def send(self, stream, op, path, ext=b"", payload=b"", offset=0, mlen=None,
             dflags=w.DF_FIRST | w.DF_LAST, msn=0, flags=0, tsn=None,
             psn=None, path_una=0, dst_stream=None, build_only=False):
        """One DATA packet. A new TSN and the path's next PSN unless given.
        Returns a dict: the packet's bytes and its tsn, psn, path, ts."""
        if tsn is None:
            tsn, self.tsn = self.tsn, (self.tsn + 1) & 0xffffffff
        if psn is None:
            psn = self.psn[path]
            self.psn[path] += 1
        ts = self.next_ts()
        buf = w.data(self.cid, op=op, dflags=dflags, tsn=tsn, path_una=path_una,
                     dst_stream=stream.iut_qpn if dst_stream is None else dst_stream,
                     src_stream=stream.qpn, msn=msn, offset=offset,
                     mlen=len(payload) if mlen is None else mlen, ext=ext,
                     payload=payload, flags=flags, path=path, psn=psn, ts=ts)
        pk = dict(buf=buf, tsn=tsn, psn=psn, path=path, ts=ts)
        if not build_only:
            self.peer.send(buf)
        return pk

    def resend(self, pk, path=None, flags=w.F_RETX):
        """The same TSN again, as a resend: a fresh PSN (MR-4.3-2, MR-6.4-3),
        on the path given (default: the same one)."""
        path = pk["path"] if path is None else path
        psn = self.psn[path]
        self.psn[path] += 1
        ts = self.next_ts()
        b = bytearray(pk["buf"])
        b[1] = flags
        struct.pack_into(">HQII", b, 2, path, self.cid, psn, ts)
        self.peer.send(bytes(b))
        return dict(pk, buf=bytes(b), psn=psn, path=path, ts=ts)

    def pump(self, secs, until=None):
        """Take what the IUT sends for up to secs, or until until() holds."""
        end = time.monotonic() + secs
        while True:
            if until and until():
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            for p in self.peer.recv_for_one(min(left, 0.05)):
                if p.dst_cid != self.conn.cid:
                    continue
                if p.type == w.ACK:
                    self.acks.append(p)
                elif p.type == w.DATA and p.payload is not None:
                    self.datas.append(p)
                    self.answer(p)
                elif p.type == w.PROBE:
                    self.answer(p)

    def answer(self, p):
        """ACK a DATA or PROBE of the IUT at once."""
        if p.type == w.DATA:
            self.rx_tsn.add(p.tsn)
        seen = self.rx_psn[p.path]
        seen.add(p.psn)
        cum = 0
        while cum in seen:
            cum += 1
        sack = [0] * 8
        for x in seen:
            i = x - cum - 1
            if 0 <= i < 255:
                sack[i // 32] |= 1 << (i % 32)
        tcum = self.rx_base
        while tcum in self.rx_tsn:
            tcum = (tcum + 1) & 0xffffffff
        tsack = 0
        for t in self.rx_tsn:
            i = (t - tcum - 1) & 0xffffffff
            if i < 64:
                tsack |= 1 << i
        self.peer.send(w.ack(self.cid, ack_path=p.path, psn_cum=cum, sack=sack,
                             tsn_cum=tcum, tsn_sack=tsack, ts_echo=p.ts,
                             path=p.path))

    def ack_for(self, pk, secs=None):
        """The ACK that answers packet pk (its ts_echo is pk's ts, for pk's
        path), waited for: MR-4.3-7 lets the suite tell ACKs apart."""
        secs = self.cf.ANSWER if secs is None else secs

        def find():
            return next((a for a in self.acks if a.ts_echo == pk["ts"] and
                         a.ack_path == pk["path"]), None)
        self.pump(secs, lambda: find() is not None)
        a = find()
        if a is None:
            raise self.cf.CheckFailed(
                "no ACK for path %d echoing ts %d (TSN %d, PSN %d) within %d ms" % (
                    pk["path"], pk["ts"], pk["tsn"], pk["psn"], secs * 1000))
        return a

    def probe(self, path):
        """A PROBE on path (acknowledged at once, 4.6): its ACK."""
        psn = self.psn[path]
        self.psn[path] += 1
        ts = self.next_ts()
        self.peer.send(w.probe(self.cid, psn, ts=ts, path=path))
        return self.ack_for(dict(ts=ts, path=path, tsn=None, psn=psn))


class Stream:
    """One stream of ours, connected through the side channel to a stream
    of the IUT that owns a buffer of SIZE bytes."""

    def __init__(self, link, size=SIZE):
        self.link, self.cf = link, link.cf
        self.qpn = link.cf.rng.randrange(0x100, 0xffffff)
        self.msn = self.rdsn = 0
        port = link.peer.addr[1]
        try:
            # node per address: the IUT takes the TCP peer's address for
            # the node's, so the side channel leaves from the UDP socket's
            src = (link.peer.addr[0], 0) if link.peer.node else None
            self.tcp = socket.create_connection(link.peer.iut[:2], timeout=2,
                                                source_address=src)
            self.tcp.sendall(struct.pack(">4I", MAGIC, port, self.qpn, size))
            got = b""
            while len(got) < 20:
                more = self.tcp.recv(20 - len(got))
                if not more:
                    break
                got += more
        except OSError as e:
            raise self.cf.CheckFailed("side channel: %s" % e)
        if len(got) != 20 or struct.unpack(">I", got[:4])[0] != MAGIC:
            raise self.cf.CheckFailed("side channel: no answer (%d bytes)" % len(got))
        _, self.iut_qpn, self.rkey, hi, lo = struct.unpack(">5I", got)
        self.addr = hi << 32 | lo
        self.size = size
        link.pump(0.02)      # let the IUT attach the stream

    def close(self):
        try:
            self.tcp.sendall(b"k")
        except OSError:
            pass
        self.tcp.close()
        self.link.pump(0.02)

    def write_pkts(self, off, data, chunk=CHUNK, paths=None, rkey=None,
                   raddr=None, mlen=None):
        """The packets of one WRITE message, built (TSNs and, per path,
        PSNs in order) but not sent; the last one asks for an ACK (6.2)."""
        L = self.link
        paths = paths or list(range(L.npaths))
        raddr = self.addr + off if raddr is None else raddr
        ext = w.ext_write(raddr, self.rkey if rkey is None else rkey)
        n = max(1, (len(data) + chunk - 1) // chunk)
        out = []
        for i in range(n):
            fl = (w.DF_FIRST if i == 0 else 0) | (w.DF_LAST if i == n - 1 else 0)
            out.append(L.send(self, w.OP_WRITE, paths[i % len(paths)], ext=ext,
                              payload=data[i * chunk:(i + 1) * chunk],
                              offset=i * chunk,
                              mlen=len(data) if mlen is None else mlen,
                              dflags=fl, msn=self.msn,
                              flags=w.F_ACK_REQ if i == n - 1 else 0,
                              build_only=True))
        self.msn += 1
        return out

    def write(self, off, data, **kw):
        pks = self.write_pkts(off, data, **kw)
        for pk in pks:
            self.link.peer.send(pk["buf"])
        return pks

    def read_req(self, off, n, path=0, raddr=None, rkey=None):
        """A READ_REQ (it does not ask for an ACK: its response answers it)."""
        pk = self.link.send(self, w.OP_READ_REQ, path,
                            ext=w.ext_read(self.addr + off if raddr is None else raddr,
                                           self.rkey if rkey is None else rkey,
                                           self.rdsn),
                            mlen=n, msn=self.msn)
        pk.update(msn=self.msn, rdsn=self.rdsn, n=n)
        self.msn += 1
        self.rdsn += 1
        return pk

    def responses(self, msn, op):
        return [d for d in self.link.datas if d.op == op and d.msn == msn and
                d.dst_stream == self.qpn]

    def read_resp(self, rq, secs=None):
        """The bytes of READ rq's response, placed by offset."""
        secs = self.cf.ANSWER if secs is None else secs

        def have():
            got = set()
            for d in self.responses(rq["msn"], w.OP_READ_RESP):
                got.update(range(d.offset, d.offset + d.plen))
            return len(got) >= rq["n"]
        if not self.link.pump(secs, have):
            naks = self.naks()
            raise self.cf.CheckFailed("READ msn %d: no complete response within %d ms%s" % (
                rq["msn"], secs * 1000,
                " (NAK syndrome %d)" % naks[0].syndrome if naks else ""))
        buf = bytearray(rq["n"])
        for d in self.responses(rq["msn"], w.OP_READ_RESP):
            if d.rdsn != rq["rdsn"] or d.mlen != rq["n"]:
                raise self.cf.CheckFailed("READ_RESP rdsn %d mlen %d for a READ "
                                          "of rdsn %d, %d bytes" % (
                                              d.rdsn, d.mlen, rq["rdsn"], rq["n"]))
            buf[d.offset:d.offset + d.plen] = d.payload
        return bytes(buf)

    def read(self, off, n, path=0):
        return self.read_resp(self.read_req(off, n, path))

    def atomic(self, aop, off, swap_add, compare=0, path=0, raddr=None):
        pk = self.link.send(self, w.OP_ATOMIC_REQ, path, mlen=8, msn=self.msn,
                            ext=w.ext_atomic(self.addr + off if raddr is None else raddr,
                                             self.rkey, self.rdsn, aop, swap_add,
                                             compare))
        pk.update(msn=self.msn, rdsn=self.rdsn)
        self.msn += 1
        self.rdsn += 1
        return pk

    def atomic_resps(self, rq, secs=None):
        secs = self.cf.ANSWER if secs is None else secs
        if not self.link.pump(secs, lambda: self.responses(rq["msn"], w.OP_ATOMIC_RESP)):
            raise self.cf.CheckFailed("ATOMIC msn %d: no ATOMIC_RESP within %d ms" % (
                rq["msn"], secs * 1000))
        return self.responses(rq["msn"], w.OP_ATOMIC_RESP)

    def naks(self):
        return [d for d in self.link.datas if d.op == w.OP_NAK and
                d.dst_stream == self.qpn]

    def nak_for(self, msn, secs=None):
        secs = self.cf.ANSWER if secs is None else secs
        find = lambda: [d for d in self.naks() if d.msn == msn]  # noqa: E731
        if not self.link.pump(secs, find):
            raise self.cf.CheckFailed("no NAK for msn %d within %d ms" % (msn, secs * 1000))
        return find()[0]


def tsn_acked(a, tsn):
    """Whether ACK a reports TSN tsn accepted (4.3: tsn_cum, tsn_sack)."""
    d = (tsn - a.tsn_cum) & 0xffffffff
    if d >= 0x80000000:
        return True
    return 1 <= d <= 64 and bool(a.tsn_sack >> (d - 1) & 1)


def blob(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def register(cf):
    check, CheckFailed, rng = cf.check, cf.CheckFailed, cf.rng

    def need(cond, why):
        if not cond:
            raise CheckFailed(why)

    def compare(want, got, what):
        bad = [i for i in range(len(want)) if want[i] != got[i]]
        need(not bad, "%s: %d of %d bytes differ, first at %d" % (
            what, len(bad), len(want), bad[0] if bad else 0))

    @check("write-any-order", ["MR-4.2-3", "MR-8.2-2", "MR-7.3-1", "MR-7.1-2"],
           "a 12-packet WRITE, packets permuted over 8 paths, 3 of them sent twice "
           "(same TSN, new PSN), a READ of it sent before its last packet: the READ "
           "waits for the WRITE and returns every byte; duplicates are counted "
           "(dup_count) and placed once")
    def c_write_any_order(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        data = blob(rng, 12 * CHUNK - 100)
        pks = s.write_pkts(512, data)
        order = pks[:]
        rng.shuffle(order)
        last = order.pop()           # held back until the READ is in
        dups = rng.sample(order, 3)
        for pk in order:
            L.peer.send(pk["buf"])
        rd = s.read_req(512, len(data), path=1)
        redo = [L.resend(pk, path=(pk["path"] + 3) % L.npaths, flags=w.F_RETX | w.F_ACK_REQ)
                for pk in dups]
        L.peer.send(last["buf"])
        got = s.read_resp(rd)
        compare(data, got, "READ after the permuted WRITE")
        dacks = [L.ack_for(pk) for pk in redo]
        for pk, a in zip(redo, dacks):
            need(tsn_acked(a, pk["tsn"]), "ACK to a duplicate does not report its TSN %d "
                 "accepted (tsn_cum %d)" % (pk["tsn"], a.tsn_cum))
        L.pump(0.05)
        top = max(a.dup_count for a in L.acks)
        need(top == 3, "dup_count %d after 3 duplicates" % top)
        # and once more: a second READ of the same bytes
        compare(data, s.read(512, len(data), path=2), "second READ")
        s.close()

    @check("reset-spares-unused", ["MR-5.2-7", "MR-5.2-5"],
           "a RESET naming our CID ends the connection, but a stream the IUT "
           "attached meanwhile that carried nothing stays: after our new "
           "CONNECT, a WRITE through it lands and READs back")
    def c_reset_spares_unused(ctx):
        L = Link(cf, ctx)
        s = Stream(L)                  # attached by the IUT, nothing carried
        L.peer.send(w.reset(L.conn.cid))
        L.pump(0.05)
        L2 = Link(cf, ctx, peer=L.peer)    # our new incarnation, same node
        s.link = L2
        data = blob(rng, 3 * CHUNK)
        pks = s.write(0, data)
        a = L2.ack_for(pks[-1])
        need(tsn_acked(a, pks[-1]["tsn"]), "the WRITE's last TSN %d not accepted "
             "(tsn_cum %d)%s" % (pks[-1]["tsn"], a.tsn_cum,
                                 " (NAK syndrome %d)" % s.naks()[0].syndrome
                                 if s.naks() else ""))
        compare(data, s.read(0, len(data)), "READ through the stream kept")
        s.close()

    @check("ack-path-sack", ["MR-4.3-3", "MR-4.3-4", "MR-4.3-5", "MR-4.3-6",
                             "MR-4.3-7", "MR-6.2-4"],
           "five one-packet WRITEs on path 2, the third (PSN 2, and so a TSN) held "
           "back: the ACK to PSN 4 (which asked) is for path 2, psn_cum 2, SACK "
           "bits 0 and 1 only, tsn_cum the held TSN, tsn_sack bits 0 and 1 only; "
           "once PSN 2 arrives (asking): psn_cum 5, no SACK bit, tsn_cum past all, "
           "tsn_sack 0; the data READ back")
    def c_ack_path_sack(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        datas = [blob(rng, 64) for _ in range(5)]
        pks = [s.write_pkts(64 * i, d, paths=[2])[0] for i, d in enumerate(datas)]
        for i in (0, 1, 3):
            L.peer.send(pks[i]["buf"])
        a = L.ack_for(_send(L, pks[4]))
        need(a.ack_path == 2, "ACK for path %d" % a.ack_path)
        need(a.psn_cum == 2, "psn_cum %d with PSN 2 missing on path 2" % a.psn_cum)
        bits = [i for i in range(256) if w.sack_bit(a.sack, i)]
        need(bits == [0, 1], "SACK bits %s, not [0, 1] (PSNs 3 and 4)" % bits)
        t0 = pks[0]["tsn"]
        need(a.tsn_cum == (t0 + 2) & 0xffffffff,
             "tsn_cum %d, not the held TSN %d" % (a.tsn_cum, t0 + 2))
        need(a.tsn_sack == 0b11, "tsn_sack 0x%x, not 0x3" % a.tsn_sack)
        a = L.ack_for(_send(L, pks[2]))
        need((a.psn_cum, sum(a.sack)) == (5, 0),
             "after the gap is filled: psn_cum %d, SACK words %s" % (a.psn_cum, a.sack))
        need(a.tsn_cum == (t0 + 5) & 0xffffffff and a.tsn_sack == 0,
             "after the gap is filled: tsn_cum %d (want %d), tsn_sack 0x%x" % (
                 a.tsn_cum, t0 + 5, a.tsn_sack))
        compare(b"".join(datas), s.read(0, 320), "READ of the five WRITEs")
        s.close()

    def _send(L, pk, flags=None):
        """pk as built, with MRE_F_ACK_REQ set (it then must draw an ACK)."""
        b = bytearray(pk["buf"])
        b[1] |= w.F_ACK_REQ
        L.peer.send(bytes(b))
        return pk

    @check("ack-tsn-gap", ["MR-4.3-3", "MR-4.3-5", "MR-4.3-6", "MR-6.2-1"],
           "a TSN gap with no PSN gap: path 3 gets TSNs t, t+2, t+3 (PSNs in order), "
           "TSN t+1 goes on path 4 later; the ACK of path 3 has no SACK bit, "
           "psn_cum 3, tsn_cum t+1, tsn_sack 0x3; after t+1: tsn_cum t+4. A PROBE "
           "on path 5 with path_una 3 (PSNs 0-2 given up) and PSN 3: psn_cum 4")
    def c_ack_tsn_gap(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        datas = [blob(rng, 32) for _ in range(4)]
        pks = [s.write_pkts(1000 + 32 * i, d, paths=[3])[0] for i, d in enumerate(datas)]
        # PSNs on path 3 were given 0..3 in TSN order; t+1 moves to path 4
        L.psn[3] = 0
        t0 = pks[0]["tsn"]
        order = [pks[0], pks[2], pks[3]]
        sent = [L.resend(pk, path=3, flags=0) for pk in order[:-1]]
        sent.append(L.resend(order[-1], path=3, flags=w.F_ACK_REQ))
        a = L.ack_for(sent[-1])
        need(a.psn_cum == 3 and sum(a.sack) == 0,
             "path 3: psn_cum %d (want 3), SACK words %s" % (a.psn_cum, a.sack))
        need(a.tsn_cum == (t0 + 1) & 0xffffffff and a.tsn_sack == 0b11,
             "tsn_cum %d (want %d), tsn_sack 0x%x (want 0x3)" % (a.tsn_cum, t0 + 1, a.tsn_sack))
        a = L.ack_for(L.resend(pks[1], path=4, flags=w.F_ACK_REQ))
        need(a.ack_path == 4 and a.psn_cum == 1,
             "ACK for path %d psn_cum %d (want path 4, 1)" % (a.ack_path, a.psn_cum))
        need(a.tsn_cum == (t0 + 4) & 0xffffffff and a.tsn_sack == 0,
             "after t+1: tsn_cum %d (want %d), tsn_sack 0x%x" % (a.tsn_cum, t0 + 4, a.tsn_sack))
        compare(b"".join(datas), s.read(1000, 128), "READ of the four WRITEs")
        ts = L.next_ts()
        L.peer.send(w.probe(L.cid, 3, path_una=3, ts=ts, path=5))
        L.psn[5] = 4
        a = L.ack_for(dict(ts=ts, path=5, tsn=None, psn=3))
        need(a.psn_cum == 4 and sum(a.sack) == 0,
             "PROBE PSN 3 with path_una 3 on a new path: psn_cum %d, SACK %s "
             "(want 4, none)" % (a.psn_cum, a.sack))
        s.close()

    def nak_check(L, s, rq, syn, what):
        n = s.nak_for(rq["msn"])
        need(n.syndrome == syn, "%s: NAK syndrome %d, not %d" % (what, n.syndrome, syn))
        need(n.src_stream == s.iut_qpn and n.dst_stream == s.qpn,
             "%s: NAK from stream %d to %d" % (what, n.src_stream, n.dst_stream))
        need(n.dflags == w.DF_FIRST | w.DF_LAST and n.plen == 0,
             "%s: NAK dflags 0x%x plen %d" % (what, n.dflags, n.plen))
        return n

    def after_nak(L, s, n, rq_tsn, what):
        """8.5: the failed request's TSN is accepted, later requests of the
        stream are discarded, ACKs carry nak_mark; another stream on the
        same connection works."""
        # a later READ on the failed stream: no response
        rd = s.read_req(0, 16)
        L.pump(cf.SILENCE, lambda: s.responses(rd["msn"], w.OP_READ_RESP))
        need(not s.responses(rd["msn"], w.OP_READ_RESP),
             "%s: a READ after the NAK on the failed stream was answered" % what)
        pk = L.send(s, w.OP_WRITE, 0, ext=w.ext_write(s.addr, s.rkey), payload=b"x" * 8,
                    msn=s.msn, flags=w.F_ACK_REQ)
        s.msn += 1
        a = L.ack_for(pk)
        need(tsn_acked(a, rq_tsn), "%s: the failed request's TSN %d not accepted "
             "(tsn_cum %d)" % (what, rq_tsn, a.tsn_cum))
        # Spec and code: 8.5 says later requests of a failed stream are
        # "discarded"; mroce-ep detaches a failed stream, after which they
        # meet the unknown-stream rule of the same section and draw a NAK
        # NO_STREAM (one per msn). The suite tolerates that (nothing is
        # executed either way), so nak_mark is one past the latest NAK sent,
        # which may be such a later one.
        L.pump(0.05)
        nak_tsns = {d.tsn for d in L.datas if d.op == w.OP_NAK}
        need(a.aflags & w.AF_MARK and ((a.nak_mark - 1) & 0xffffffff) in nak_tsns and
             ((a.nak_mark - 1 - n.tsn) & 0xffffffff) < 0x80000000,
             "%s: ACK after the NAK: aflags 0x%x nak_mark %d (NAKs sent with TSNs %s)" % (
                 what, a.aflags, a.nak_mark, sorted(nak_tsns)))
        other = [d for d in L.datas if d.op == w.OP_NAK and d.tsn != n.tsn and
                 d.syndrome != w.SYN_NO_STREAM]
        need(not other, "%s: later requests of the failed stream drew NAKs %s" % (
            what, [(d.msn, d.syndrome) for d in other]))
        s.close()
        s2 = Stream(L)
        d = blob(rng, 3000)
        s2.write(0, d)
        compare(d, s2.read(0, len(d)), "%s: another stream on the connection" % what)
        s2.close()

    @check("nak-write-rkey", ["MR-8.5-1", "MR-8.5-2", "MR-8.5-3"],
           "a WRITE with a wrong rkey draws a NAK REM_ACCESS (3) naming our stream "
           "and its msn; its TSN is accepted, a later READ of the stream is not "
           "answered, ACKs carry nak_mark; a new stream on the connection works")
    def c_nak_rkey(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        msn = s.msn
        pks = s.write(0, blob(rng, 2000), rkey=s.rkey ^ 0x5a5a0000)
        n = nak_check(L, s, dict(msn=msn), w.SYN_REM_ACCESS, "bad rkey")
        after_nak(L, s, n, pks[-1]["tsn"], "bad rkey")

    @check("nak-write-range", ["MR-8.5-1", "MR-8.5-2", "MR-8.5-3", "MR-4.2-4"],
           "the first packet alone of a two-packet WRITE whose message ends 1 byte "
           "past the buffer (the packet itself lies inside it): the whole message is "
           "checked at every packet (4.2), so it draws a NAK REM_ACCESS (3)")
    def c_nak_range(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        msn = s.msn
        pks = s.write_pkts(s.size - 2 * CHUNK + 1, blob(rng, 2 * CHUNK))
        L.peer.send(pks[0]["buf"])
        n = nak_check(L, s, dict(msn=msn), w.SYN_REM_ACCESS, "WRITE past the buffer")
        L.peer.send(pks[1]["buf"])
        after_nak(L, s, n, pks[-1]["tsn"], "WRITE past the buffer")

    @check("nak-read-range", ["MR-8.5-1", "MR-8.5-2"],
           "a READ of 200 bytes from 100 bytes before the buffer's end draws a NAK "
           "REM_ACCESS (3), no READ_RESP")
    def c_nak_read(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        rq = s.read_req(s.size - 100, 200)
        n = nak_check(L, s, rq, w.SYN_REM_ACCESS, "READ past the buffer")
        need(not s.responses(rq["msn"], w.OP_READ_RESP), "READ past the buffer answered")
        after_nak(L, s, n, rq["tsn"], "READ past the buffer")

    @check("nak-no-stream", ["MR-8.5-1", "MR-11.1-9"],
           "a two-packet WRITE to a stream the IUT does not have, and one from a "
           "stream ours is not connected to: each draws one NAK NO_STREAM (2) (once "
           "per message), its TSNs are accepted, the real stream still works")
    def c_nak_stream(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        ghost = Stream.__new__(Stream)
        ghost.qpn, ghost.iut_qpn = s.qpn ^ 0x400000, s.iut_qpn
        last = None
        for who, dst in ((s, s.iut_qpn ^ 0x800000), (ghost, s.iut_qpn)):
            ext = w.ext_write(s.addr, s.rkey)
            for i in range(2):
                last = L.send(who, w.OP_WRITE, i, ext=ext, payload=b"y" * 8, offset=8 * i,
                              mlen=16, dflags=(w.DF_FIRST, w.DF_LAST)[i], msn=0,
                              flags=w.F_ACK_REQ * i, dst_stream=dst)
        find = lambda: [d for d in L.datas if d.op == w.OP_NAK]  # noqa: E731
        L.pump(cf.ANSWER, lambda: len(find()) >= 2)
        L.pump(cf.SILENCE)
        got = [(d.dst_stream, d.syndrome) for d in find()]
        want = [(s.qpn, w.SYN_NO_STREAM), (ghost.qpn, w.SYN_NO_STREAM)]
        need(sorted(got) == sorted(want), "NAKs (to stream, syndrome) %s, want %s" % (got, want))
        need(tsn_acked(L.ack_for(last), last["tsn"]), "their TSNs not accepted")
        d = blob(rng, 100)
        s.write(0, d)
        compare(d, s.read(0, 100), "the existing stream after the NAKs")
        s.close()

    @check("stale-duplicate", ["MR-7.1-2", "MR-7.3-1", "MR-6.2-4"],
           "a WRITE placed and acknowledged, then its TSN again with other bytes "
           "(a late resend): an ACK at once, dup_count up by one, the bytes not "
           "placed again")
    def c_stale(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        d = blob(rng, 256)
        pk = s.write(4096, d)[0]
        a0 = L.ack_for(pk)
        need(tsn_acked(a0, pk["tsn"]), "the WRITE's TSN not accepted")
        b = bytearray(pk["buf"])
        b[-256:] = blob(rng, 256)
        late = L.resend(dict(pk, buf=bytes(b)), path=5, flags=w.F_RETX)  # no ACK_REQ
        a = L.ack_for(late, secs=cf.ANSWER)
        need(a.dup_count == a0.dup_count + 1, "dup_count %d, was %d" % (a.dup_count, a0.dup_count))
        compare(d, s.read(4096, 256), "READ after the late duplicate")
        s.close()

    @check("tsn-window", ["MR-7.1-3", "MR-6.2-4", "MR-11.1-13"],
           "a WRITE whose TSN is tsn_cum + window (the IUT's window, from its "
           "ACCEPT) draws an ACK at once that does not accept it, and lands nowhere")
    def c_window(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        base = L.tsn
        far = blob(rng, 64)
        pk = L.send(s, w.OP_WRITE, 1, ext=w.ext_write(s.addr + 8192, s.rkey),
                    payload=far, msn=s.msn, tsn=(base + L.window) & 0xffffffff)
        a = L.ack_for(pk)
        need(a.tsn_cum == base and a.tsn_sack == 0,
             "after a TSN at tsn_cum + window: tsn_cum %d (want %d), tsn_sack 0x%x" % (
                 a.tsn_cum, base, a.tsn_sack))
        got = s.read(8192, 64)
        need(got == bytes(64), "the WRITE beyond the TSN window was placed")
        s.close()

    @check("path-window", ["MR-6.2-2", "MR-11.1-13"],
           "a WRITE on path 6 with PSN psn_cum + 256 is dropped: not placed, its TSN "
           "not accepted; the same TSN resent with an in-window PSN and other bytes "
           "lands those bytes")
    def c_path_window(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        d1, d2 = blob(rng, 64), blob(rng, 64)
        pk = L.send(s, w.OP_WRITE, 6, ext=w.ext_write(s.addr + 12288, s.rkey),
                    payload=d1, msn=s.msn, psn=256, flags=w.F_ACK_REQ)
        L.psn[6] = 0
        L.pump(cf.SILENCE)
        a = L.probe(6)
        need(a.psn_cum == 1 and sum(a.sack) == 0,
             "path 6 after PSN 256 and a PROBE with PSN 0: psn_cum %d SACK %s" % (
                 a.psn_cum, a.sack))
        need(not tsn_acked(a, pk["tsn"]), "the TSN of the dropped packet was accepted")
        b = bytearray(pk["buf"])
        b[-64:] = d2
        L.resend(dict(pk, buf=bytes(b)), path=6, flags=w.F_RETX | w.F_ACK_REQ)
        s.msn += 1
        got = s.read(12288, 64)
        need(got != d1, "the packet beyond the path window was placed")
        compare(d2, got, "the resend")
        s.close()

    @check("atomic-once", ["MR-7.3-1", "MR-8.2-3", "MR-4.2-6", "MR-4.2-7"],
           "FETCH_ADD 5 sent three times (same TSN: at once, and after its "
           "response): every ATOMIC_RESP carries the original 0 and rdsn 0; a "
           "FETCH_ADD 0 then returns 5 (executed once); CMP_SWP(5 -> X) returns 5, "
           "a FETCH_ADD 0 returns X; an unaligned ATOMIC draws NAK REM_INV_REQ (4)")
    def c_atomic(ctx):
        L = Link(cf, ctx)
        s = Stream(L)
        a1 = s.atomic(w.AOP_FETCH_ADD, 64, 5)
        L.resend(a1, path=3)
        r = s.atomic_resps(a1)
        L.resend(a1, path=4, flags=w.F_RETX | w.F_ACK_REQ)
        L.pump(0.05)
        r = s.responses(a1["msn"], w.OP_ATOMIC_RESP)
        for x in r:
            need(x.orig == 0 and x.rdsn == 0,
                 "ATOMIC_RESP orig %d rdsn %d (want 0, 0)" % (x.orig, x.rdsn))
        a2 = s.atomic(w.AOP_FETCH_ADD, 64, 0, path=1)
        v = s.atomic_resps(a2)[0].orig
        need(v == 5, "after FETCH_ADD 5 (sent 3 times) the word is %d, not 5" % v)
        x = rng.getrandbits(64)
        a3 = s.atomic(w.AOP_CMP_SWP, 64, x, compare=5, path=2)
        L.resend(a3, path=5)
        v = s.atomic_resps(a3)[0].orig
        need(v == 5, "CMP_SWP returned %d, not 5" % v)
        a4 = s.atomic(w.AOP_FETCH_ADD, 64, 0, path=1)
        v = s.atomic_resps(a4)[0].orig
        need(v == x, "after CMP_SWP(5 -> 0x%x) the word is 0x%x" % (x, v))
        a5 = s.atomic(w.AOP_FETCH_ADD, 68, 1)
        nak_check(L, s, a5, w.SYN_REM_INV_REQ, "unaligned ATOMIC")
        s.close()

