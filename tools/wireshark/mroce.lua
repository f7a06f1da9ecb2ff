-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- Wireshark dissector for MetaRoCE, wire version 2 (Documentation/protocol.md,
-- kernel/engine/wire.h). Every field of struct mre_pkt has a field here named
-- mroce.<member> (tests/wireshark/check.py holds the two to each other).
--
--   tshark -X lua_script:tools/wireshark/mroce.lua -r capture.pcap -V
--   wireshark -X lua_script:tools/wireshark/mroce.lua
--   (or copy it to ~/.local/lib/wireshark/plugins/)
--
-- Registered on UDP port 4796 (the module's default udp_port); Decode As
-- ... MROCE for another port.

local P = Proto("mroce", "MetaRoCE")

local types = { [1] = "DATA", [2] = "ACK", [3] = "CONNECT", [4] = "ACCEPT",
	[5] = "RESET", [6] = "PROBE", [7] = "UD", [8] = "RETRY", [9] = "CHALLENGE",
	[10] = "ECHO", [11] = "PARITY" }
local ops = { [1] = "SEND", [2] = "WRITE", [3] = "READ_REQ", [4] = "READ_RESP",
	[5] = "ATOMIC_REQ", [6] = "ATOMIC_RESP", [7] = "NAK", [8] = "NOP",
	[9] = "ATOMIC_WRITE_REQ", [10] = "FLUSH_REQ" }
local syns = { [0] = "NONE", [1] = "RNR", [2] = "NO_STREAM", [3] = "REM_ACCESS",
	[4] = "REM_INV_REQ", [5] = "REM_OP", [6] = "BUSY" }
local aops = { [1] = "CMP_SWP", [2] = "FETCH_ADD" }

local F = P.fields
local function f(name, kind, label, base, vals, mask)
	F[name] = kind("mroce." .. name, label, base, vals, mask)
	return F[name]
end

-- common header
f("version", ProtoField.uint8, "Version", base.DEC, nil, 0xf0)
f("type", ProtoField.uint8, "Type", base.DEC, types, 0x0f)
f("flags", ProtoField.uint8, "Flags", base.HEX)
f("flag_ack_req", ProtoField.bool, "ACK requested", 8, nil, 0x01)
f("flag_retx", ProtoField.bool, "Retransmission", 8, nil, 0x02)
f("path", ProtoField.uint16, "Path", base.DEC)
f("dst_cid", ProtoField.uint64, "Destination connection id", base.HEX)
f("psn", ProtoField.uint32, "PSN", base.DEC)
f("ts", ProtoField.uint32, "Timestamp (ns, low 32 bits)", base.DEC)
-- DATA
f("tsn", ProtoField.uint32, "TSN", base.DEC)
f("path_una", ProtoField.uint32, "Path unacknowledged PSN", base.DEC)
f("dst_stream", ProtoField.uint32, "Destination stream", base.DEC)
f("src_stream", ProtoField.uint32, "Source stream", base.DEC)
f("msn", ProtoField.uint32, "MSN", base.DEC)
f("offset", ProtoField.uint32, "Offset", base.DEC)
f("mlen", ProtoField.uint32, "Message length", base.DEC)
f("op", ProtoField.uint8, "Operation", base.DEC, ops)
f("dflags", ProtoField.uint8, "Data flags", base.HEX)
f("df_first", ProtoField.bool, "FIRST", 8, nil, 0x01)
f("df_last", ProtoField.bool, "LAST", 8, nil, 0x02)
f("df_imm", ProtoField.bool, "IMM", 8, nil, 0x04)
f("df_solicit", ProtoField.bool, "SOLICIT", 8, nil, 0x08)
f("df_recv", ProtoField.bool, "RECV", 8, nil, 0x10)
f("df_inv", ProtoField.bool, "INV", 8, nil, 0x20)
f("plen", ProtoField.uint16, "Payload length", base.DEC)
f("rkey", ProtoField.uint32, "R_Key", base.HEX)
f("raddr", ProtoField.uint64, "Remote address", base.HEX)
f("rsn", ProtoField.uint32, "RSN", base.DEC)
f("rdsn", ProtoField.uint32, "RDSN", base.DEC)
f("imm", ProtoField.uint32, "Immediate / rkey to invalidate", base.HEX)
f("aop", ProtoField.uint8, "Atomic operation", base.DEC, aops)
f("swap_add", ProtoField.uint64, "Swap / add / value written", base.HEX)
f("compare", ProtoField.uint64, "Compare", base.HEX)
f("fflags", ProtoField.uint8, "Flush flags", base.HEX)
f("ff_global", ProtoField.bool, "GLOBAL", 8, nil, 0x01)
f("ff_persistent", ProtoField.bool, "PERSISTENT", 8, nil, 0x02)
f("ff_mr", ProtoField.bool, "MR", 8, nil, 0x10)
f("orig", ProtoField.uint64, "Original value", base.HEX)
f("syndrome", ProtoField.uint32, "Syndrome", base.DEC, syns)
f("payload", ProtoField.bytes, "Payload")
-- ACK
f("ack_path", ProtoField.uint16, "Acknowledged path", base.DEC)
f("nak", ProtoField.uint8, "Refusal", base.DEC, syns)
f("aflags", ProtoField.uint8, "ACK flags", base.HEX)
f("psn_cum", ProtoField.uint32, "Cumulative PSN", base.DEC)
f("sack", ProtoField.bytes, "SACK bitmap (256 bits)")
f("sack_range", ProtoField.string, "SACKed PSNs")
f("tsn_cum", ProtoField.uint32, "Cumulative TSN", base.DEC)
f("tsn_sack", ProtoField.uint64, "TSN SACK bitmap", base.HEX)
f("tsn_sack_range", ProtoField.string, "SACKed TSNs")
f("ts_echo", ProtoField.uint32, "Timestamp echo", base.DEC)
f("ack_delay", ProtoField.uint32, "ACK delay (ns)", base.DEC)
f("ce_count", ProtoField.uint32, "CE count", base.DEC)
f("rate_hint", ProtoField.uint32, "Rate hint (Mbit/s)", base.DEC)
f("rnr_delay", ProtoField.uint32, "RNR delay (ns)", base.DEC)
f("dup_count", ProtoField.uint32, "Duplicate TSNs", base.DEC)
f("nak_mark", ProtoField.uint32, "NAK mark", base.DEC)
-- CONNECT / ACCEPT
f("src_cid", ProtoField.uint64, "Source connection id", base.HEX)
f("isn", ProtoField.uint32, "Initial TSN", base.DEC)
f("window_log2", ProtoField.uint8, "TSN window (log2)", base.DEC)
f("npaths", ProtoField.uint8, "Paths", base.DEC)
f("blob_len", ProtoField.uint16, "Blob length", base.DEC)
f("cflags", ProtoField.uint32, "Connect flags", base.HEX)
f("cookie", ProtoField.uint64, "Cookie", base.HEX)
f("blob", ProtoField.bytes, "Plane blob")
f("blob_version", ProtoField.uint8, "Blob version", base.DEC)
f("blob_family", ProtoField.uint8, "Address family", base.DEC)
f("blob_count", ProtoField.uint8, "Planes", base.DEC)
f("plane_ipv4", ProtoField.ipv4, "Plane address")
f("plane_ipv6", ProtoField.ipv6, "Plane address")
-- RESET
f("cid", ProtoField.uint64, "Connection id not found", base.HEX)
f("reason", ProtoField.uint32, "Reason", base.DEC)
-- UD
f("dst_qpn", ProtoField.uint32, "Destination QPN", base.DEC)
f("src_qpn", ProtoField.uint32, "Source QPN", base.DEC)
f("qkey", ProtoField.uint32, "Q_Key", base.HEX)
f("udflags", ProtoField.uint8, "UD flags", base.HEX)
-- CHALLENGE / ECHO (the plane proof)
f("nonce", ProtoField.uint64, "Nonce", base.HEX)
f("plane", ProtoField.uint8, "Plane (in the challenged node's blob)", base.DEC)

local ext = { [1] = 8, [2] = 20, [3] = 20, [4] = 4, [5] = 36, [6] = 12, [7] = 4, [8] = 0,
	[9] = 24, [10] = 20 }

-- set bits of a bitmap as "a-b, c" from @base + 1 + bit (serial numbers)
local function ranges(bits, base)
	local out, start = {}, nil
	local function close(last)
		local a, b = (base + 1 + start) % 2^32, (base + 1 + last) % 2^32
		out[#out + 1] = start == last and tostring(a) or a .. "-" .. b
		start = nil
	end
	for i = 0, #bits - 1 do
		if bits[i + 1] and not start then start = i end
		if not bits[i + 1] and start then close(i - 1) end
	end
	if start then close(#bits - 1) end
	return #out > 0 and table.concat(out, ", ") or "none"
end

local function data(buf, t)
	t:add(F.tsn, buf(20, 4)); t:add(F.path_una, buf(24, 4))
	t:add(F.dst_stream, buf(28, 4)); t:add(F.src_stream, buf(32, 4))
	t:add(F.msn, buf(36, 4)); t:add(F.offset, buf(40, 4)); t:add(F.mlen, buf(44, 4))
	local op = buf(48, 1):uint()
	t:add(F.op, buf(48, 1))
	local df = t:add(F.dflags, buf(49, 1))
	for _, n in ipairs({ "df_first", "df_last", "df_imm", "df_solicit", "df_recv", "df_inv" }) do
		df:add(F[n], buf(49, 1))
	end
	t:add(F.plen, buf(50, 2))
	local x = 52
	if op == 1 then
		t:add(F.rsn, buf(x, 4)); t:add(F.imm, buf(x + 4, 4))
	elseif op == 2 then
		t:add(F.raddr, buf(x, 8)); t:add(F.rkey, buf(x + 8, 4))
		t:add(F.rsn, buf(x + 12, 4)); t:add(F.imm, buf(x + 16, 4))
	elseif op == 3 then
		t:add(F.raddr, buf(x, 8)); t:add(F.rkey, buf(x + 8, 4)); t:add(F.rdsn, buf(x + 12, 4))
	elseif op == 4 then
		t:add(F.rdsn, buf(x, 4))
	elseif op == 5 then
		t:add(F.raddr, buf(x, 8)); t:add(F.rkey, buf(x + 8, 4)); t:add(F.rdsn, buf(x + 12, 4))
		t:add(F.aop, buf(x + 16, 1)); t:add(F.swap_add, buf(x + 20, 8)); t:add(F.compare, buf(x + 28, 8))
	elseif op == 6 then
		t:add(F.rdsn, buf(x, 4)); t:add(F.orig, buf(x + 4, 8))
	elseif op == 7 then
		t:add(F.syndrome, buf(x, 4))
	elseif op == 9 then
		t:add(F.raddr, buf(x, 8)); t:add(F.rkey, buf(x + 8, 4)); t:add(F.rdsn, buf(x + 12, 4))
		t:add(F.swap_add, buf(x + 16, 8))
	elseif op == 10 then
		t:add(F.raddr, buf(x, 8)); t:add(F.rkey, buf(x + 8, 4)); t:add(F.rdsn, buf(x + 12, 4))
		local ff = t:add(F.fflags, buf(x + 16, 1))
		ff:add(F.ff_global, buf(x + 16, 1)); ff:add(F.ff_persistent, buf(x + 16, 1))
		ff:add(F.ff_mr, buf(x + 16, 1))
	end
	local hl = 52 + (ext[op] or 0)
	local plen = buf(50, 2):uint()
	if plen > 0 and buf:len() >= hl + plen then t:add(F.payload, buf(hl, plen)) end
	return (ops[op] or "?") .. " tsn " .. buf(20, 4):uint()
end

local function ack(buf, t)
	t:add(F.ack_path, buf(20, 2)); t:add(F.nak, buf(22, 1)); t:add(F.aflags, buf(23, 1))
	t:add(F.psn_cum, buf(24, 4))
	local bits = {}
	for w = 0, 7 do
		local v = buf(28 + 4 * w, 4):uint()
		for b = 0, 31 do bits[#bits + 1] = math.floor(v / 2^b) % 2 == 1 end
	end
	local s = t:add(F.sack, buf(28, 32))
	s:add(F.sack_range, buf(28, 32), ranges(bits, buf(24, 4):uint()))
	t:add(F.tsn_cum, buf(60, 4))
	local ts = t:add(F.tsn_sack, buf(64, 8))
	local tbits, hi, lo = {}, buf(64, 4):uint(), buf(68, 4):uint()
	for b = 0, 31 do tbits[#tbits + 1] = math.floor(lo / 2^b) % 2 == 1 end
	for b = 0, 31 do tbits[#tbits + 1] = math.floor(hi / 2^b) % 2 == 1 end
	ts:add(F.tsn_sack_range, buf(64, 8), ranges(tbits, buf(60, 4):uint()))
	t:add(F.ts_echo, buf(72, 4)); t:add(F.ack_delay, buf(76, 4)); t:add(F.ce_count, buf(80, 4))
	t:add(F.rate_hint, buf(84, 4)); t:add(F.rnr_delay, buf(88, 4)); t:add(F.dup_count, buf(92, 4))
	t:add(F.nak_mark, buf(96, 4))
	return "path " .. buf(20, 2):uint() .. " psn_cum " .. buf(24, 4):uint() .. " tsn_cum " .. buf(60, 4):uint()
end

local function connect(buf, t)
	t:add(F.src_cid, buf(20, 8)); t:add(F.isn, buf(28, 4)); t:add(F.window_log2, buf(32, 1))
	t:add(F.npaths, buf(33, 1)); t:add(F.blob_len, buf(34, 2)); t:add(F.cflags, buf(36, 4))
	t:add(F.cookie, buf(40, 8))
	local bl = buf(34, 2):uint()
	if bl >= 4 and buf:len() >= 48 + bl then
		local b = t:add(F.blob, buf(48, bl))
		b:add(F.blob_version, buf(48, 1)); b:add(F.blob_family, buf(49, 1)); b:add(F.blob_count, buf(50, 1))
		local fam, n = buf(49, 1):uint(), buf(50, 1):uint()
		local alen = fam == 4 and 4 or 16
		for k = 0, n - 1 do
			local o = 52 + k * alen
			if o + alen > 48 + bl then break end
			b:add(fam == 4 and F.plane_ipv4 or F.plane_ipv6, buf(o, alen)):append_text(" (plane " .. k .. ")")
		end
	end
	return "src_cid 0x" .. buf(20, 8):uint64():tohex()
end

function P.dissector(buf, pinfo, tree)
	if buf:len() < 20 then return 0 end
	pinfo.cols.protocol = "MROCE"
	local t = tree:add(P, buf(), "MetaRoCE")
	t:add(F.version, buf(0, 1)); t:add(F.type, buf(0, 1))
	local fl = t:add(F.flags, buf(1, 1))
	fl:add(F.flag_ack_req, buf(1, 1)); fl:add(F.flag_retx, buf(1, 1))
	t:add(F.path, buf(2, 2)); t:add(F.dst_cid, buf(4, 8)); t:add(F.psn, buf(12, 4)); t:add(F.ts, buf(16, 4))
	local ty, info = buf(0, 1):uint() % 16, ""
	if (ty == 1 or ty == 11) and buf:len() >= 52 then info = data(buf, t)
	elseif ty == 2 and buf:len() >= 100 then info = ack(buf, t)
	elseif (ty == 3 or ty == 4) and buf:len() >= 48 then info = connect(buf, t)
	elseif ty == 5 and buf:len() >= 32 then
		t:add(F.cid, buf(20, 8)); t:add(F.reason, buf(28, 4))
		info = "cid 0x" .. buf(20, 8):uint64():tohex()
	elseif ty == 6 and buf:len() >= 28 then
		t:add(F.path_una, buf(20, 4))
	elseif ty == 7 and buf:len() >= 40 then
		t:add(F.dst_qpn, buf(20, 4)); t:add(F.src_qpn, buf(24, 4)); t:add(F.qkey, buf(28, 4))
		t:add(F.imm, buf(32, 4)); t:add(F.udflags, buf(36, 1)); t:add(F.plen, buf(38, 2))
		local plen = buf(38, 2):uint()
		if plen > 0 and buf:len() >= 40 + plen then t:add(F.payload, buf(40, plen)) end
		info = "qpn " .. buf(24, 4):uint() .. " -> " .. buf(20, 4):uint()
	elseif ty == 8 and buf:len() >= 28 then
		t:add(F.cookie, buf(20, 8))
	elseif (ty == 9 or ty == 10) and buf:len() >= 32 then
		t:add(F.nonce, buf(20, 8)); t:add(F.plane, buf(28, 1))
		info = "plane " .. buf(28, 1):uint() .. " nonce 0x" .. buf(20, 8):uint64():tohex()
	end
	pinfo.cols.info = (types[ty] or "?") .. " " .. info
	return buf:len()
end

DissectorTable.get("udp.port"):add(4796, P)
