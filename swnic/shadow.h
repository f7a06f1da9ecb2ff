/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The software NIC's object tables (include/mroce/offload.h,
 * MROCE_OFL_OBJECTS): what mroce's commands told it of a device's PDs,
 * CQs, SRQs, MRs, MWs and QPs, and the check that every MetaRoCE packet it
 * carries names only objects it was told of ("shadow mode": mroce's engine
 * still moves the data).
 */
#ifndef SWNIC_SHADOW_H
#define SWNIC_SHADOW_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include <mroce/offload.h>

struct device;
struct sk_buff;

enum shadow_stat {
	SH_CMDS,		/* commands carried out */
	SH_CMD_REFUSED,		/* commands refused (an errno to mroce) */
	SH_TX_CHECKED,		/* DATA and UD packets mroce sent, checked */
	SH_RX_CHECKED,		/* DATA and UD packets received, checked */
	/* holes: what mroce sent names no object in the state it needs */
	SH_TX_UNKNOWN_QP,	/* source QP never told of, or destroyed */
	SH_TX_NO_DEST,		/* RC/UC source QP not told of an RTR */
	SH_TX_BAD_DEST,		/* destination stream not the QP's dest_qpn */
	/* received: holes when the peer is mroce, hostile input otherwise */
	SH_RX_UNKNOWN_QP,	/* destination QP never told of */
	SH_RX_UNKNOWN_KEY,	/* rkey whose index names no MR or MW */
	SH_RX_BAD_KEY,		/* rkey, PD, rights or range the tables refuse */
	/* received, not holes: late packets for objects destroyed since */
	SH_RX_GONE_QP,
	SH_RX_GONE_KEY,
	/* doorbells */
	SH_DB,			/* doorbells rung */
	SH_DB_UNKNOWN,		/* a hole: a queue never told of, or gone */
	SH_DB_BAD_INDEX,	/* an SQ index ahead of the last by > depth */
	SH_DB_STALE,		/* an SQ index behind the last (not a hole) */
	/* a hole: the SQ's header, read through the pages told, disagrees */
	SH_DB_RING_DIFFERS,
	/* READ responses mroce sent, compared with the MR's pages */
	SH_READ_CHECKED,
	SH_READ_DIFFERS,	/* a hole: the MR's pages hold other bytes */
	/* send WQEs fetched at SQ doorbells through the ring's pages */
	SH_WQE_CHECKED,
	SH_WQE_RACED,		/* consumed and maybe reused meanwhile: not judged */
	SH_WQE_BAD_OP,		/* an opcode the QP's type cannot post */
	SH_WQE_BAD_SGE,		/* too many SGEs for the ring's stride */
	SH_WQE_BAD_LKEY,	/* an lkey, PD, right or range the tables refuse */
	SH_WQE_UNKNOWN_AH,	/* UD: an AH never told of, gone, or another PD's */
	SH_WQE_REG_MR,		/* a hole: REG_MR's pages are not in the WQE */
	SH_NSTATS
};

struct swnic_shadow {
	struct device *dma;	/* page lists are its bus addresses; or NULL */
	struct mutex lock;	/* commands, one at a time */
	struct xarray pds, cqs, srqs;	/* ids present: xa_mk_value(1) */
	struct xarray qps;	/* struct shadow_qp, RCU readers */
	struct xarray keys;	/* struct shadow_key by key index, RCU */
	struct xarray ahs;	/* struct shadow_ah by id, RCU; its own lock */
	u32 tombs;		/* entries kept for destroyed QPs and keys */
	atomic64_t stats[SH_NSTATS];
};

void swnic_shadow_init(struct swnic_shadow *sh, struct device *dma);
void swnic_shadow_free(struct swnic_shadow *sh);
int swnic_shadow_cmd(struct swnic_shadow *sh, const struct mroce_ofl_cmd *c);
/* @skb: data at the MetaRoCE header; RX may pull headers into the head */
void swnic_shadow_tx(struct swnic_shadow *sh, const struct sk_buff *skb);
void swnic_shadow_rx(struct swnic_shadow *sh, struct sk_buff *skb);
void swnic_shadow_doorbell(struct swnic_shadow *sh, u32 queue, u32 value);
/* SH_NSTATS names (for counter_names) or values, where not NULL */
void swnic_shadow_counters(const struct swnic_shadow *sh, const char **names,
			   u64 *val);

#endif /* SWNIC_SHADOW_H */
