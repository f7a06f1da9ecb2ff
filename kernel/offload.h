/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mroce's side of the offload boundary (include/mroce/offload.h): which
 * datapath a device runs, and the transmit switch between them.
 *
 * A device picks its datapath once, at creation: an offload that is
 * registered and claims the device's netdev, or mroce's own software
 * datapath (the MetaRoCE engine in the kernel, the IP stack for frames).
 * It keeps it, with a reference on the offload's module, until it is
 * freed, so the datapath never changes under running traffic.
 *
 * The software datapath is the default and is reached by direct calls: the
 * transmit switch (net.c, mroce_batch_flush()) is a static key,
 * mroce_ofl_in_use, that is on only while some device uses an offload, so
 * a system without one pays no indirect call per packet; receive from the
 * host's UDP socket calls mroce_rx() directly.
 */
#ifndef MROCE_OFFLOAD_H
#define MROCE_OFFLOAD_H

#include <linux/jump_label.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <mroce/offload.h>

struct mroce_dev;
struct net_device;
struct seq_file;

/* one device's attachment to an offload (embedded in struct mroce_dev) */
struct mroce_ofl_port {
	struct mroce_dev *mdev;
	const struct mroce_offload *ofl;	/* NULL: software datapath */
	void *priv;				/* the offload's cookie */
	struct device *dma_dev;			/* its answer (OBJECTS), or NULL */
	bool live;				/* accepts mroce_ofl_rx(); RCU */
	/* object commands carried out and refused (sysfs ofl_cmds, ...) */
	atomic64_t cmds, cmd_errors;
	atomic64_t events;			/* taken (sysfs ofl_events) */
	/* the CQs and SRQs told of, by command id, for the NIC's events */
	struct xarray cqs, srqs;		/* oflcmd.c writes; RCU readers */
};

/*
 * On while some device runs on an offload (offload.c counts them; defined
 * in oflcmd.c, which calls nothing of the glue): only then does the batch
 * flush look at a device's offload, so without one every packet goes to
 * mroce_net_xmit() by a direct call; the doorbells test it likewise.
 */
DECLARE_STATIC_KEY_FALSE(mroce_ofl_in_use);

int mroce_ofl_dev_init(struct mroce_dev *mdev, const char *ibdev_name);
void mroce_ofl_dev_stop(struct mroce_dev *mdev);
void mroce_ofl_dev_exit(struct mroce_dev *mdev);
const char *mroce_ofl_name(const struct mroce_dev *mdev);
int mroce_ofl_plane_add(struct mroce_dev *mdev, u32 k, struct net_device *ndev);
void mroce_ofl_plane_del(struct mroce_dev *mdev, u32 k);
/*
 * The offload's own counters (query_counters): does it have them; "name
 * value" lines of them into @m (debugfs ofl_counters), 0 or its errno.
 * Process context, while the device's offload is attached.
 */
bool mroce_ofl_has_counters(const struct mroce_dev *mdev);
int mroce_ofl_counters_show(struct mroce_dev *mdev, struct seq_file *m);

#endif /* MROCE_OFFLOAD_H */
