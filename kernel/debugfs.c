// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * debugfs view of connections and paths (see debugfs.h).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "debugfs.h"
#include "offload.h"
#include "peer.h"
#include "mroce.h"

static struct dentry *mroce_debugfs_root;

static void show_path(struct seq_file *m, const struct mre_path *p)
{
	seq_printf(m, "  path %2u plane %u sport %5u %-7s rto# %u psn %u..%u out %u cwnd %u srtt %lluus rto %lluus tx %llu retx %llu lost %llu acked %llu ce %llu repath %llu rx %llu\n",
		   p->id, p->plane, p->src_port,
		   mre_path_health_name(p->health), p->n_rto, p->psn_una,
		   p->psn_next, p->inflight, p->cwnd >> MRE_FP,
		   p->srtt / NSEC_PER_USEC, p->rto / NSEC_PER_USEC, p->st_tx,
		   p->st_retx, p->st_lost, p->st_acked, p->st_ce, p->st_repath,
		   p->st_rx);
}

static void show_peer(struct mroce_peer *peer, void *arg)
{
	struct seq_file *m = arg;
	const struct mre_conn *c = &peer->conn;
	kuid_t owner;
	u64 now;
	u32 i;

	spin_lock_bh(&peer->mdev->peers_lock);	/* the owner's */
	owner = peer->owner;
	spin_unlock_bh(&peer->mdev->peers_lock);
	spin_lock_bh(&peer->lock);
	now = max(mroce_clock_ns(), c->clock);
	seq_printf(m, "peer %pISc from %pISc cid %#llx remote %#llx %s streams %u owner %d\n",
		   &peer->daddr, &peer->saddr, c->cid, c->remote_cid,
		   mre_conn_state_name(c->state), c->nstreams,
		   uid_valid(owner) ? (int)from_kuid(&init_user_ns, owner) : -1);
	seq_printf(m, "  tsn una %u next %u out %u wait %u retxq %u cwnd %u rate %u Mbit/s reorder %u last ack %lluus ago rx gate %u\n",
		   c->tsn_una, c->tsn_next, c->inflight, c->n_wait,
		   c->rtxq_tail - c->rtxq_head, c->cwnd >> MRE_FP, c->rate_mbps,
		   c->reorder, c->last_ack ? (now - c->last_ack) / NSEC_PER_USEC : 0,
		   c->rxw.base);
	seq_printf(m, "  engine runs %u timer moved earlier %u\n", peer->run,
		   peer->timer_earlier);
	for (i = 1; i < c->nplanes && i < MROCE_MAX_PLANES; i++) {
		const struct mroce_peer_plane *pp = &peer->pl[i];

		if (pp->ready)
			seq_printf(m, "  plane %u to %pISc from %pISc%s\n", i,
				   &pp->daddr, &pp->saddr,
				   peer->plane_down[i] ? " down" : "");
		else
			seq_printf(m, "  plane %u: addresses %s, by plane 0%s\n",
				   i, c->peer_nplanes ? "not proven" : "not known",
				   peer->plane_down[i] ? " (down)" : "");
	}
	for (i = 0; i < c->npaths; i++)
		show_path(m, &c->paths[i]);
	spin_unlock_bh(&peer->lock);
}

static int peers_show(struct seq_file *m, void *v)
{
	struct mroce_dev *mdev = m->private;

	mroce_peers_for_each(mdev, show_peer, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(peers);

/* PARITY (protocol.md 6.7), which the statistics message has no room for */
static int parity_show(struct seq_file *m, void *v)
{
	static const char *const names[] = {
		"tx", "rx", "rebuilt", "unused", "short", "failed", "skipped",
	};
	const struct mroce_dev *mdev = m->private;
	const u64 *ctr = (const u64 *)&mdev->ep.par;
	u32 i;

	BUILD_BUG_ON(sizeof(mdev->ep.par) != sizeof(names) / sizeof(*names) *
		     sizeof(u64));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		seq_printf(m, "%s %llu\n", names[i], ctr[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(parity);

static int ofl_counters_show(struct seq_file *m, void *v)
{
	return mroce_ofl_counters_show(m->private, m);
}
DEFINE_SHOW_ATTRIBUTE(ofl_counters);

void mroce_debugfs_add(struct mroce_dev *mdev)
{
	mdev->debugfs = debugfs_create_dir(dev_name(&mdev->ibdev.dev),
					   mroce_debugfs_root);
	debugfs_create_file("peers", 0400, mdev->debugfs, mdev, &peers_fops);
	debugfs_create_file("parity", 0400, mdev->debugfs, mdev, &parity_fops);
	if (mroce_ofl_has_counters(mdev))	/* the NIC's, by query */
		debugfs_create_file("ofl_counters", 0400, mdev->debugfs, mdev,
				    &ofl_counters_fops);
}

void mroce_debugfs_del(struct mroce_dev *mdev)
{
	debugfs_remove_recursive(mdev->debugfs);
	mdev->debugfs = NULL;
}

void mroce_debugfs_init(void)
{
	mroce_debugfs_root = debugfs_create_dir("mroce", NULL);
}

void mroce_debugfs_exit(void)
{
	debugfs_remove_recursive(mroce_debugfs_root);
}
