// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Module parameters (see param.h). All are read-only after load except
 * fill_mtu and loop_direct; the engine's are read when a device is created.
 */
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/time64.h>

#include "engine.h"
#include "param.h"
#include "socket.h"

static ushort udp_port = MROCE_DEFAULT_UDP_PORT;
module_param(udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port,
		 "UDP port of MetaRoCE in every namespace (default 4796; 0, 4791 (RoCEv2) and 4793 (UET) are refused)");

u16 mroce_param_udp_port(void)
{
	return udp_port;
}

static uint npaths = 8;
module_param(npaths, uint, 0444);
MODULE_PARM_DESC(npaths, "paths (UDP source ports) per connection, 1..64 (default 8)");
static uint window = 10;
module_param(window, uint, 0444);
MODULE_PARM_DESC(window, "log2 of the TSN window per connection, 4..16 (default 10: 1024 packets)");
static uint rto_min_us = 5000;
module_param(rto_min_us, uint, 0444);
MODULE_PARM_DESC(rto_min_us, "smallest path retransmission timeout, microseconds (default 5000)");
static uint rto_init_us = 20000;
module_param(rto_init_us, uint, 0444);
MODULE_PARM_DESC(rto_init_us, "retransmission timeout before any RTT sample, microseconds (default 20000)");
/*
 * ACKs: a software endpoint pays for every packet it handles, an ACK as
 * much as a data packet, and its paths each see a packet every tens or
 * hundreds of microseconds. The sender asks for the ACKs it needs (twice
 * per window, at the end of each message, tail probes), so the receiver's
 * own rules can be lazy: every 8 packets of a path, 500 us at most, and
 * no ACK at once for reordering (a host sending from two CPUs reorders
 * all the time). The engine's defaults (every 2, 8 us, at once) are a
 * datacenter NIC's.
 */
static uint ack_delay_us = 500;
module_param(ack_delay_us, uint, 0444);
MODULE_PARM_DESC(ack_delay_us, "longest delay of an ACK, microseconds (default 500)");

static uint answer_ack_us = 2000;
module_param(answer_ack_us, uint, 0444);
MODULE_PARM_DESC(answer_ack_us, "longest delay of the ACK of a one-packet READ or ATOMIC response, microseconds (default 2000)");

static uint dead_ms = 5000;
module_param(dead_ms, uint, 0444);
MODULE_PARM_DESC(dead_ms, "no ACK for this long with data outstanding fails a connection, ms (default 5000)");
static uint link_mbps;
module_param(link_mbps, uint, 0444);
MODULE_PARM_DESC(link_mbps, "receive capacity advertised in rate hints, Mbit/s (default 0: no hints)");
static uint init_cwnd = 16;
module_param(init_cwnd, uint, 0444);
MODULE_PARM_DESC(init_cwnd, "initial window of a path, packets (default 16)");
static uint ack_freq = 8;
module_param(ack_freq, uint, 0444);
MODULE_PARM_DESC(ack_freq, "acknowledge every this many packets of a path, 1..64 (default 8)");
static bool ack_ooo;
module_param(ack_ooo, bool, 0444);
MODULE_PARM_DESC(ack_ooo, "acknowledge a packet that arrives out of order at once (default N)");
static uint tx_burst = 32;
module_param(tx_burst, uint, 0444);
MODULE_PARM_DESC(tx_burst, "most packets one connection sends before letting others run (default 32)");
static uint small_msg = 4096;
module_param(small_msg, uint, 0444);
MODULE_PARM_DESC(small_msg, "a message of at most this many bytes keeps to one path, 0: spray every packet (default 4096)");
/*
 * Off by default here (the engine's default is 300): a software endpoint's
 * RTT jitters by more than a switch queue adds, so most samples look
 * queued and slow start would end at once (ib_write_bw 4 KiB in the TCG
 * guest: 50.4 -> 37.7 MB/s with 50, medians of 5 in one boot).
 */
static uint loss_queue_pct;
module_param(loss_queue_pct, uint, 0444);
MODULE_PARM_DESC(loss_queue_pct, "a loss with the path's RTT this % above its least halves the windows (congestion), 0..10000 (default 0: loss never cuts)");

static uint parity_pkts = 16;
module_param(parity_pkts, uint, 0444);
MODULE_PARM_DESC(parity_pkts, "while packets are lost, a PARITY follows the last this many packets of each WRITE with immediate so that the receiver rebuilds one lost of them, 0..64, 0: none sent or taken (default 16)");
static uint parity_ppm = 2000;
module_param(parity_ppm, uint, 0444);
MODULE_PARM_DESC(parity_ppm, "PARITY while at least this many packets per million of a connection are lost, 0: always (default 2000)");

void mroce_engine_config(struct mre_config *cfg)
{
	mre_config_default(cfg);
	cfg->npaths = npaths;
	cfg->window_log2 = window;
	cfg->conn_max_cwnd = 1u << min(window, 16u);
	cfg->rto_min_ns = (u64)rto_min_us * NSEC_PER_USEC;
	cfg->rto_init_ns = max_t(u64, (u64)rto_init_us * NSEC_PER_USEC,
				 cfg->rto_min_ns);
	cfg->ack_delay_ns = (u64)ack_delay_us * NSEC_PER_USEC;
	cfg->answer_ack_ns = (u64)answer_ack_us * NSEC_PER_USEC;
	cfg->dead_ns = (u64)dead_ms * NSEC_PER_MSEC;
	cfg->link_mbps = link_mbps;
	cfg->init_cwnd = init_cwnd;
	cfg->ack_freq = ack_freq;
	cfg->tx_burst = tx_burst;
	cfg->small_bytes = small_msg;
	cfg->ack_ooo_now = ack_ooo;
	cfg->loss_queue_pct = loss_queue_pct;
	cfg->parity_pkts = parity_pkts;
	cfg->parity_ppm = parity_ppm;
	/* software endpoints jitter by milliseconds: probe gently */
	cfg->probe_min_ns = max_t(u64, cfg->probe_min_ns, 4 * cfg->rto_min_ns);
	cfg->connect_ns = max_t(u64, cfg->connect_ns, cfg->rto_init_ns);
	cfg->active_ns = max_t(u64, cfg->active_ns, cfg->rto_min_ns);
}

/*
 * Peers: each costs its connection's memory (about 70 KB at window=10,
 * 3.7 MB at 16), made for a QP or for a CONNECT whose cookie proved its
 * address. One no QP uses goes after peer_idle_s; when the room is full,
 * the unused ones go at once and, if none is, the next is refused
 * (peertab.c, room()).
 *
 * The room of a device is max_peers peers and max_peer_mb of them
 * (counted as the allocators round a peer's two allocations: a count
 * alone lets window=16 turn 1024 peers into 4 GB). A peer is shared by
 * every QP to its node, so it is charged where it is made: its memory to
 * the memory cgroup of the task whose RTR made it (GFP_KERNEL_ACCOUNT),
 * and the peer to that task's real uid, until the peer is freed; a peer a
 * CONNECT or a kernel QP made is charged to the first user whose QP uses
 * it (else a remote accomplice's CONNECTs would make peers for no one). A
 * user may have max_peers_per_user charged, and never more than half of
 * what QPs may make, so one user cannot hold every slot (issue 29: 1024
 * QPs to distinct nodes refused every other user a new node). Per uid,
 * not per ucontext: a process opens as many contexts as it likes, and a
 * uid is what the kernel's own per-user limits count. Kernel ULPs' QPs
 * (no uobject; set up by the administrator) charge no one. QPs may make
 * peers in all but an eighth of the room: that is left to CONNECTs from
 * new nodes (made in a work item: no task to charge, the memory is the
 * module's), so local users cannot refuse every remote node; a remote
 * node's peer that no QP uses goes at once when room is needed, so
 * CONNECTs cannot refuse local users either.
 */
static uint max_peers = 1024;
module_param(max_peers, uint, 0444);
MODULE_PARM_DESC(max_peers, "most peers (remote nodes) a device keeps, 1.. (default 1024)");
static uint max_peer_mb = 256;
module_param(max_peer_mb, uint, 0444);
MODULE_PARM_DESC(max_peer_mb, "most memory a device's peers take, MiB (default 256; 0: no limit but max_peers)");
static uint max_peers_per_user = 256;
module_param(max_peers_per_user, uint, 0444);
MODULE_PARM_DESC(max_peers_per_user, "most peers of a device charged to one user (made by its QPs), never more than half of what QPs may make (default 256; 0: no limit per user)");
static uint peer_idle_s = 60;
module_param(peer_idle_s, uint, 0444);
MODULE_PARM_DESC(peer_idle_s, "a peer no QP has used for this long is freed, seconds (default 60; 0: only when max_peers are in use)");

u32 mroce_param_max_peers(void)
{
	return max(max_peers, 1u);
}

u32 mroce_param_max_peer_mb(void)
{
	return max_peer_mb;
}

u32 mroce_param_max_peers_per_user(void)
{
	return max_peers_per_user;
}

u32 mroce_param_peer_idle_s(void)
{
	return peer_idle_s;
}

static uint comp_vectors;
module_param(comp_vectors, uint, 0444);
MODULE_PARM_DESC(comp_vectors, "completion vectors of a device, 1..1024; vector i is handled on the i-th CPU, spread over the online ones (default 0: one per online CPU)");

u32 mroce_param_comp_vectors(void)
{
	return clamp(comp_vectors ?: num_online_cpus(), 1u, 1024u);
}

static bool fill_mtu = true;
module_param(fill_mtu, bool, 0644);
MODULE_PARM_DESC(fill_mtu, "RC packets carry as much payload as the netdev MTU allows, not only the QP's path MTU (default Y)");

bool mroce_param_fill_mtu(void)
{
	return READ_ONCE(fill_mtu);
}

static bool loop_direct = true;
module_param(loop_direct, bool, 0644);
MODULE_PARM_DESC(loop_direct, "a device's packets to itself go straight to its receive path, not through UDP, IP and the loopback netdev (default Y; N: by the stack, where tcpdump and netem on lo see them)");

bool mroce_param_loop_direct(void)
{
	return READ_ONCE(loop_direct);
}
