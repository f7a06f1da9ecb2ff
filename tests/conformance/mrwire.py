# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""MetaRoCE packets, encoded and decoded from Documentation/protocol.md
section 4 alone (wire version 2).

This is the conformance suite's own encoder: it does not share a line with
kernel/engine/wire.c, on purpose. Where the text was not enough, the note
next to the field says what was read in wire.c to settle it.

Every builder takes keyword arguments for the fields it may break, so a
check can make a packet wrong in exactly one way.
"""
import struct

VERSION = 2

# section 4.1, "type"
DATA, ACK, CONNECT, ACCEPT, RESET, PROBE, UD, RETRY, CHALLENGE, ECHO = range(1, 11)
TYPE_NAMES = {DATA: "DATA", ACK: "ACK", CONNECT: "CONNECT", ACCEPT: "ACCEPT",
              RESET: "RESET", PROBE: "PROBE", UD: "UD", RETRY: "RETRY",
              CHALLENGE: "CHALLENGE", ECHO: "ECHO"}

PARITY = 11
CF_PARITY = 0x01          # CONNECT/ACCEPT: the sender takes PARITY
F_ACK_REQ, F_RETX = 0x01, 0x02
F_RESERVED = 0xff & ~(F_ACK_REQ | F_RETX)
AF_MARK = 0x01

# section 4.2: ops, the length of each op's extension, dflags
OP_SEND, OP_WRITE, OP_READ_REQ, OP_READ_RESP, OP_ATOMIC_REQ, \
    OP_ATOMIC_RESP, OP_NAK, OP_NOP, OP_ATOMIC_WRITE_REQ, OP_FLUSH_REQ = range(1, 11)
EXT_LEN = {OP_SEND: 8, OP_WRITE: 20, OP_READ_REQ: 20, OP_READ_RESP: 4,
           OP_ATOMIC_REQ: 36, OP_ATOMIC_RESP: 12, OP_NAK: 4, OP_NOP: 0,
           OP_ATOMIC_WRITE_REQ: 24, OP_FLUSH_REQ: 20}
DF_FIRST, DF_LAST, DF_IMM, DF_SOLICIT, DF_RECV, DF_INV = 1, 2, 4, 8, 0x10, 0x20

# fixed sizes (sections 4.1 to 4.9)
COMMON_LEN = 20
DATA_LEN = 52
ACK_LEN = 100
CONNECT_LEN = 48          # + blob
RESET_LEN = 32
PROBE_LEN = 28
RETRY_LEN = 28
PLANE_PKT_LEN = 32        # CHALLENGE, ECHO
MAX_BLOB = 136
MAX_PATHS = 64
SACK_BITS = 256

_COMMON = struct.Struct(">BBHQII")          # ver|type, flags, path, dst_cid, psn, ts
_CONNECT = struct.Struct(">QIBBHIQ")        # src_cid isn wlog npaths blob_len cflags cookie
_DATA = struct.Struct(">IIIIIIIBBH")        # tsn .. plen (offsets 20..51)
_ACK_HEAD = struct.Struct(">HBBI")          # ack_path nak aflags psn_cum
_ACK_TAIL = struct.Struct(">IQIIIIIII")     # tsn_cum tsn_sack ts_echo .. nak_mark


def common(ptype, dst_cid=0, flags=0, path=0, psn=0, ts=0, ver=VERSION):
    return _COMMON.pack((ver & 0xf) << 4 | (ptype & 0xf), flags, path,
                        dst_cid, psn, ts)


def connect(src_cid, isn=0, cookie=0, dst_cid=0, ptype=CONNECT, window_log2=10,
            npaths=8, blob=b"", blob_len=None, cflags=0, **hdr):
    """CONNECT (or ACCEPT with ptype=ACCEPT), section 4.4. blob_len
    defaults to len(blob); give it to make the two disagree."""
    if blob_len is None:
        blob_len = len(blob)
    return (common(ptype, dst_cid, **hdr) +
            _CONNECT.pack(src_cid, isn, window_log2, npaths, blob_len,
                          cflags, cookie) + blob)


def reset(cid, reason=0, dst_cid=0, **hdr):
    """RESET, section 4.5: dst_cid 0 (MR-4.1-3), cid the id not found.

    Spec and code: 4.1 makes dst_cid 0 a sender's rule for CONNECT, RESET
    and UD; 11.1 lists only "CONNECT with a dst_cid" as drop_field, and
    wire.c refuses a UD with a dst_cid but takes a RESET with one. The text
    says nothing for the receipt of either, so no check here relies on it
    (README.md, "Spec and code")."""
    return common(RESET, dst_cid, **hdr) + struct.pack(">QI", cid, reason)


def retry(dst_cid, cookie, **hdr):
    """RETRY, section 4.8. Always 28 bytes, shorter than a RESET: MR-5.2-4's
    "a RETRY MUST NOT be answered" cannot be told apart on the wire from
    its "nor a datagram shorter than the RESET" for an unknown CID."""
    return common(RETRY, dst_cid, **hdr) + struct.pack(">Q", cookie)


def probe(dst_cid, psn, path_una=0, **hdr):
    """PROBE, section 4.6: path_una at 20, 4 reserved bytes at 24."""
    return common(PROBE, dst_cid, psn=psn, **hdr) + struct.pack(">II", path_una, 0)


def ack(dst_cid, ack_path=0, nak=0, aflags=0, psn_cum=0, sack=None,
        tsn_cum=0, tsn_sack=0, ts_echo=0, **hdr):
    """ACK, section 4.3 (100 bytes)."""
    words = list(sack or [0] * 8)
    return (common(ACK, dst_cid, **hdr) +
            _ACK_HEAD.pack(ack_path, nak, aflags, psn_cum) +
            struct.pack(">8I", *words) +
            _ACK_TAIL.pack(tsn_cum, tsn_sack, ts_echo, 0, 0, 0, 0, 0, 0))


def data(dst_cid, op=OP_NOP, dflags=DF_FIRST | DF_LAST, tsn=0, path_una=0,
         dst_stream=1, src_stream=1, msn=0, offset=0, mlen=0, ext=None,
         payload=b"", plen=None, **hdr):
    """DATA, section 4.2. ext: the op's extension bytes (zeros by default,
    of the length the op's row in the table gives; 0 for an unknown op)."""
    if ext is None:
        ext = bytes(EXT_LEN.get(op, 0))
    if plen is None:
        plen = len(payload)
    return (common(DATA, dst_cid, **hdr) +
            _DATA.pack(tsn, path_una, dst_stream, src_stream, msn, offset,
                       mlen, op, dflags, plen) + ext + payload)


# extensions of the ops a requester sends (section 4.2, the table)
AOP_CMP_SWP, AOP_FETCH_ADD = 1, 2
SYN_NO_STREAM, SYN_REM_ACCESS, SYN_REM_INV_REQ, SYN_REM_OP = 2, 3, 4, 5


def ext_write(raddr, rkey, rsn=0, imm=0):
    return struct.pack(">QIII", raddr, rkey, rsn, imm)


def ext_read(raddr, rkey, rdsn):
    return struct.pack(">QIII", raddr, rkey, rdsn, 0)


def ext_atomic(raddr, rkey, rdsn, aop, swap_add, compare=0):
    return struct.pack(">QIIB3xQQ", raddr, rkey, rdsn, aop, swap_add, compare)


def challenge(dst_cid, nonce, plane=0, ptype=CHALLENGE, **hdr):
    """CHALLENGE or ECHO, section 4.9."""
    return common(ptype, dst_cid, **hdr) + struct.pack(">QB3x", nonce, plane)


class Pkt(dict):
    """A decoded datagram: the common header's fields, the type's fields,
    and 'bad': what in it breaks a sender's rule of section 4 (a list of
    (requirement id, text)). Attribute access for brevity."""
    __getattr__ = dict.get


def parse(buf):
    """Decode a datagram the IUT sent. Never raises: a datagram that is not
    a packet comes back with 'bad' saying why."""
    p = Pkt(len=len(buf), bad=[])
    if len(buf) < COMMON_LEN:
        p.bad.append(("MR-4.1-1", "%d bytes: shorter than the common header" % len(buf)))
        p["type"] = None
        return p
    b0, p["flags"], p["path"], p["dst_cid"], p["psn"], p["ts"] = \
        _COMMON.unpack_from(buf)
    p["ver"], p["type"] = b0 >> 4, b0 & 0xf
    p["name"] = TYPE_NAMES.get(p.type, "type%d" % p.type)
    if p.ver != VERSION:
        p.bad.append(("MR-4.1-1", "version %d, not 2" % p.ver))
    if p.flags & F_RESERVED:
        p.bad.append(("MR-4-1", "reserved flag bits 0x%02x" % (p.flags & F_RESERVED)))
    if p.path >= MAX_PATHS:
        p.bad.append(("MR-4-1", "path %d >= 64" % p.path))
    t, n = p.type, len(buf)

    def fixed(size):
        if n != size:
            p.bad.append(("MR-4-1", "%s of %d bytes, not %d" % (p.name, n, size)))
            return False
        return True

    if t in (CONNECT, ACCEPT):
        if n < CONNECT_LEN:
            p.bad.append(("MR-4-1", "%s of %d bytes, < 48" % (p.name, n)))
            return p
        (p["src_cid"], p["isn"], p["window_log2"], p["npaths"], p["blob_len"],
         p["cflags"], p["cookie"]) = _CONNECT.unpack_from(buf, COMMON_LEN)
        p["blob"] = bytes(buf[CONNECT_LEN:])
        if p.blob_len != n - CONNECT_LEN or p.blob_len > MAX_BLOB:
            p.bad.append(("MR-4-1", "blob_len %d in a %d-byte %s" % (p.blob_len, n, p.name)))
        if p.cflags & ~CF_PARITY:
            p.bad.append(("MR-4-1", "cflags 0x%x (reserved)" % p.cflags))
        if not 4 <= p.window_log2 <= 16:
            p.bad.append(("MR-4-1", "window_log2 %d outside 4..16" % p.window_log2))
        if not 1 <= p.npaths <= 64:
            p.bad.append(("MR-4-1", "npaths %d outside 1..64" % p.npaths))
        if p.psn:
            p.bad.append(("MR-4-1", "psn %d in %s (must be 0)" % (p.psn, p.name)))
    elif t == RESET and fixed(RESET_LEN):
        p["cid"], p["reason"] = struct.unpack_from(">QI", buf, COMMON_LEN)
        if p.reason:
            p.bad.append(("MR-4-1", "RESET reason %d (reserved)" % p.reason))
        if p.psn:
            p.bad.append(("MR-4-1", "psn %d in RESET (must be 0)" % p.psn))
    elif t == RETRY and fixed(RETRY_LEN):
        (p["cookie"],) = struct.unpack_from(">Q", buf, COMMON_LEN)
        if p.psn:
            p.bad.append(("MR-4-1", "psn %d in RETRY (must be 0)" % p.psn))
    elif t == PROBE and fixed(PROBE_LEN):
        p["path_una"], rsv = struct.unpack_from(">II", buf, COMMON_LEN)
        if rsv:
            p.bad.append(("MR-4-1", "PROBE reserved word 0x%x" % rsv))
    elif t == ACK and fixed(ACK_LEN):
        p["ack_path"], p["nak"], p["aflags"], p["psn_cum"] = \
            _ACK_HEAD.unpack_from(buf, COMMON_LEN)
        p["sack"] = list(struct.unpack_from(">8I", buf, 28))
        (p["tsn_cum"], p["tsn_sack"], p["ts_echo"], p["ack_delay"],
         p["ce_count"], p["rate_hint"], p["rnr_delay"], p["dup_count"],
         p["nak_mark"]) = _ACK_TAIL.unpack_from(buf, 60)
        if p.aflags & ~AF_MARK:
            p.bad.append(("MR-4-1", "ACK aflags 0x%02x (reserved bits)" % p.aflags))
    elif t in (CHALLENGE, ECHO) and fixed(PLANE_PKT_LEN):
        p["nonce"], p["plane"] = struct.unpack_from(">QB", buf, COMMON_LEN)
        if buf[29:32] != b"\0\0\0":
            p.bad.append(("MR-4-1", "%s reserved bytes set" % p.name))
    elif t == DATA:
        if n < DATA_LEN:
            p.bad.append(("MR-4-1", "DATA of %d bytes, < 52" % n))
            return p
        (p["tsn"], p["path_una"], p["dst_stream"], p["src_stream"], p["msn"],
         p["offset"], p["mlen"], p["op"], p["dflags"], p["plen"]) = \
            _DATA.unpack_from(buf, COMMON_LEN)
        el = EXT_LEN.get(p.op)
        if el is None or DATA_LEN + el + p.plen != n:
            p.bad.append(("MR-4.2-2", "DATA op %d plen %d in %d bytes" % (p.op, p.plen, n)))
            return p
        if p.offset + p.plen > p.mlen:
            p.bad.append(("MR-4.2-1", "offset %d + plen %d > mlen %d" % (p.offset, p.plen, p.mlen)))
        x = DATA_LEN
        if p.op == OP_READ_RESP:
            (p["rdsn"],) = struct.unpack_from(">I", buf, x)
        elif p.op == OP_ATOMIC_RESP:
            p["rdsn"], p["orig"] = struct.unpack_from(">IQ", buf, x)
        elif p.op == OP_NAK:
            (p["syndrome"],) = struct.unpack_from(">I", buf, x)
        p["payload"] = bytes(buf[x + el:])
    elif t not in TYPE_NAMES:
        p.bad.append(("MR-4.1-1", "unknown type %d" % t))
    return p


def sack_bit(words, i):
    """Bit i of an ACK's sack: bit i mod 32 of word i / 32, words in order
    (section 4.3). Bit 0 is read as the least significant bit of word 0,
    the usual reading of "bit n" for a number; the text does not say
    which end is bit 0, wire.c/sack.c treat it the same way."""
    return (words[i // 32] >> (i % 32)) & 1
