// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The offload boundary's registration contract (include/mroce/offload.h),
 * run in the guest by tests/vm/offload.sh: at load it registers good and
 * bad tables and checks each answer, printing "ok N - ..." / "not ok N -
 * ..." lines and a count of failures in the `failed` parameter.
 *
 *   insmod mroce_ofl_test.ko [busy=1] [hold=1 [fail_netdev=NAME]]
 *     busy=1         another offload (mroce_swnic) is registered: a good
 *                    table must get -EBUSY, and the cases that need the slot
 *                    free are skipped
 *     hold=1         leave a table registered until rmmod. Its claim()
 *                    counts its calls (`claims`) and accepts only
 *                    fail_netdev, whose attach() then fails with -ENODEV:
 *                    `rdma link add` on that netdev must fail, on any other
 *                    it must give a software device.
 *     hold=1 obj_netdev=NAME
 *                    the held table takes MROCE_OFL_OBJECTS and claims
 *                    NAME too, attaching (it drops every packet). Its cmd()
 *                    counts CREATEs and DESTROYs (`created`, `destroyed`;
 *                    MR_CREATE with REPLACE counts as neither) and refuses
 *                    the op in `refuse_op` (writable) with -ENOSPC,
 *                    counting `refused`. Writing to `raise` hands
 *                    mroce_ofl_event() an event: "qp N" QP_FATAL for QP N,
 *                    "device" DEVICE_FATAL, "cqcomp N", "cqerr N" CQ_COMP,
 *                    CQ_ERR for CQ N, "srqlimit N" SRQ_LIMIT, "type T" an
 *                    event of type T for id 0; `raised` is its answer.
 *                    `last_cq`, `last_srq`: the ids of the last CQ_CREATE
 *                    and SRQ_CREATE. With `comp_on_arm` (writable), every
 *                    CQ arm doorbell is answered by a CQ_COMP event at
 *                    once (`comp_on_arm_answer`). Its counters, by query, are
 *                    `created` and `destroyed`. AH commands are counted
 *                    apart, in `ahs` ("CREATED DESTROYED").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include <mroce/offload.h>

static bool busy;
module_param(busy, bool, 0444);
static bool hold;
module_param(hold, bool, 0444);
static char fail_netdev[IFNAMSIZ];
module_param_string(fail_netdev, fail_netdev, sizeof(fail_netdev), 0444);
static int claims;
module_param(claims, int, 0444);
static int failed;
module_param(failed, int, 0444);
static int attaches;
module_param(attaches, int, 0444);
static char obj_netdev[IFNAMSIZ];
module_param_string(obj_netdev, obj_netdev, sizeof(obj_netdev), 0444);
static int created;
module_param(created, int, 0444);
static int destroyed;
module_param(destroyed, int, 0444);
static int refuse_op;
module_param(refuse_op, int, 0644);
static int refused_cmds;
module_param_named(refused, refused_cmds, int, 0444);

static int ncase;

static void expect(const char *what, int got, int want)
{
	ncase++;
	if (got == want) {
		pr_info("ok %d - %s (%d)\n", ncase, what, got);
		return;
	}
	failed++;
	pr_info("not ok %d - %s: got %d, want %d\n", ncase, what, got, want);
}

static DEFINE_MUTEX(t_cmd_lock);	/* the counts, obj_port */
static struct mroce_ofl_port *obj_port;	/* obj_netdev's, while attached */

static bool t_claim(struct net_device *ndev)
{
	claims++;
	return (fail_netdev[0] && !strcmp(ndev->name, fail_netdev)) ||
	       (obj_netdev[0] && !strcmp(ndev->name, obj_netdev));
}

static int t_attach(struct mroce_ofl_port *port,
		    struct mroce_ofl_port_info *info, void **priv)
{
	attaches++;
	if (!obj_netdev[0] || strcmp(info->ndev->name, obj_netdev))
		return -ENODEV;
	mutex_lock(&t_cmd_lock);
	obj_port = port;
	mutex_unlock(&t_cmd_lock);
	return 0;
}

static void t_detach(void *priv)
{
	mutex_lock(&t_cmd_lock);
	obj_port = NULL;
	mutex_unlock(&t_cmd_lock);
}

static int t_plane_add(void *priv, u32 k, struct net_device *ndev)
{
	return -ENODEV;
}

static int t_xmit(void *priv, struct sk_buff *skb,
		  const struct mroce_ofl_tx *tx)
{
	kfree_skb(skb);
	return -ENODEV;
}

#define GOOD {							\
	.name = "mroce_ofl_test", .owner = THIS_MODULE,		\
	.version = MROCE_OFFLOAD_VERSION, .caps = MROCE_OFL_PACKETS,	\
	.claim = t_claim, .attach = t_attach, .detach = t_detach,	\
	.xmit = t_xmit }

static int doorbells;
module_param(doorbells, int, 0444);

static bool comp_on_arm;
module_param(comp_on_arm, bool, 0644);
static int comp_on_arm_answer = 1;
module_param(comp_on_arm_answer, int, 0444);

/*
 * Any context: counted. With `comp_on_arm`, a CQ's arm is answered at
 * once by its completion interrupt (CQ_COMP), as a NIC with a CQE already
 * written would: mroce must hold the arm before it rings the doorbell.
 */
static void t_doorbell(void *priv, u32 queue, u32 value)
{
	struct mroce_ofl_port *port = READ_ONCE(obj_port);
	struct mroce_ofl_event ev = {
		.type = MROCE_OFL_EV_CQ_COMP,
		.id = MROCE_OFL_DBQ_ID(queue),
	};

	doorbells++;
	if (READ_ONCE(comp_on_arm) && port &&
	    MROCE_OFL_DBQ_TYPE(queue) == MROCE_OFL_DB_CQ_ARM)
		WRITE_ONCE(comp_on_arm_answer, mroce_ofl_event(port, &ev));
}

static int raised;
module_param(raised, int, 0444);

/* the ids of the last CQ and SRQ created (for `raise`) */
static int last_cq;
module_param(last_cq, int, 0444);
static int last_srq;
module_param(last_srq, int, 0444);

/* `raise`: "device" or "KIND N", an event of obj_netdev's device */
static int t_raise(const char *val, const struct kernel_param *kp)
{
	static const struct { const char *kind; u8 type; } kinds[] = {
		{ "qp ", MROCE_OFL_EV_QP_FATAL },
		{ "cqcomp ", MROCE_OFL_EV_CQ_COMP },
		{ "cqerr ", MROCE_OFL_EV_CQ_ERR },
		{ "srqlimit ", MROCE_OFL_EV_SRQ_LIMIT },
		{ "type ", 0 },		/* "type T": an event of type T, id 0 */
	};
	struct mroce_ofl_event ev = {};
	u32 i, n, arg;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		n = strlen(kinds[i].kind);
		if (strncmp(val, kinds[i].kind, n))
			continue;
		if (kstrtou32(val + n, 0, &arg))
			return -EINVAL;
		ev.type = kinds[i].type ? kinds[i].type : arg;
		ev.id = kinds[i].type ? arg : 0;
		break;
	}
	if (sysfs_streq(val, "device"))
		ev.type = MROCE_OFL_EV_DEVICE_FATAL;
	else if (i == ARRAY_SIZE(kinds))
		return -EINVAL;
	mutex_lock(&t_cmd_lock);
	raised = obj_port ? mroce_ofl_event(obj_port, &ev) : -ENODEV;
	mutex_unlock(&t_cmd_lock);
	return 0;
}

static const struct kernel_param_ops t_raise_ops = { .set = t_raise };
module_param_cb(raise, &t_raise_ops, NULL, 0200);

static atomic_t t_ahs_created, t_ahs_destroyed;

static int t_ahs_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %d\n", atomic_read(&t_ahs_created),
			  atomic_read(&t_ahs_destroyed));
}

static const struct kernel_param_ops t_ahs_ops = { .get = t_ahs_get };
module_param_cb(ahs, &t_ahs_ops, NULL, 0444);

/* the held table's commands (obj_netdev); process context but for AHs */
static int t_cmd(void *priv, const struct mroce_ofl_cmd *c)
{
	int err = 0;

	if (c->version != MROCE_OFL_CMD_VERSION)
		return -EPROTO;
	/* AH commands may come where sleeping is not allowed: counted apart */
	if (c->op == MROCE_OFL_CMD_AH_CREATE || c->op == MROCE_OFL_CMD_AH_DESTROY) {
		atomic_inc(c->op == MROCE_OFL_CMD_AH_CREATE ? &t_ahs_created :
			   &t_ahs_destroyed);
		return 0;
	}
	might_sleep();
	mutex_lock(&t_cmd_lock);
	if (c->op == READ_ONCE(refuse_op)) {
		refused_cmds++;
		err = -ENOSPC;
		goto out;
	}
	switch (c->op) {
	case MROCE_OFL_CMD_CQ_CREATE:
	case MROCE_OFL_CMD_SRQ_CREATE:
		*(c->op == MROCE_OFL_CMD_CQ_CREATE ? &last_cq : &last_srq) = c->id;
		fallthrough;
	case MROCE_OFL_CMD_PD_CREATE:
	case MROCE_OFL_CMD_MW_CREATE:
	case MROCE_OFL_CMD_QP_CREATE:
		created++;
		break;
	case MROCE_OFL_CMD_MR_CREATE:
		if (!(c->flags & MROCE_OFL_CF_REPLACE))
			created++;
		break;
	case MROCE_OFL_CMD_PD_DESTROY:
	case MROCE_OFL_CMD_MR_DESTROY:
	case MROCE_OFL_CMD_MW_DESTROY:
	case MROCE_OFL_CMD_CQ_DESTROY:
	case MROCE_OFL_CMD_SRQ_DESTROY:
	case MROCE_OFL_CMD_QP_DESTROY:
		destroyed++;
		break;
	}
out:
	mutex_unlock(&t_cmd_lock);
	return err;
}

static struct mroce_offload good = GOOD, other = GOOD, held = GOOD;

/* the held table's counters: its command counts */
static const char *const t_names[] = { "created", "destroyed" };
static const char *const t_bad_names[] = { "created", "de stroyed" };

static int t_query_counters(void *priv, u64 *val)
{
	mutex_lock(&t_cmd_lock);
	val[0] = created;
	val[1] = destroyed;
	mutex_unlock(&t_cmd_lock);
	return 0;
}

/* @o with one member changed must be refused with @want */
static void refused(const char *what, struct mroce_offload o, int want)
{
	int err = mroce_offload_register(&o);

	if (!err)
		mroce_offload_unregister(&o);
	expect(what, err, want);
}

/* a good table with @member set to @value must be refused with @want */
#define REFUSED(what, member, value, want) do {			\
		struct mroce_offload o = GOOD;				\
									\
		o.member = value;					\
		refused(what, o, want);					\
	} while (0)

static void bad_tables(void)
{
	expect("NULL table: -EINVAL", mroce_offload_register(NULL), -EINVAL);
	REFUSED("no name: -EINVAL", name, NULL, -EINVAL);
	REFUSED("no claim: -EINVAL", claim, NULL, -EINVAL);
	REFUSED("no attach: -EINVAL", attach, NULL, -EINVAL);
	REFUSED("no detach: -EINVAL", detach, NULL, -EINVAL);
	REFUSED("PACKETS without xmit: -EINVAL", xmit, NULL, -EINVAL);
	REFUSED("plane_add without plane_del: -EINVAL", plane_add, t_plane_add,
		-EINVAL);
	REFUSED("another boundary version: -EPROTO", version,
		MROCE_OFFLOAD_VERSION + 1, -EPROTO);
	REFUSED("no level: -EINVAL", caps, 0, -EINVAL);
	REFUSED("an unknown capability bit: -EINVAL", caps,
		MROCE_OFL_PACKETS | BIT(9), -EINVAL);
	REFUSED("TRANSPORT, not accepted by this mroce: -EOPNOTSUPP", caps,
		MROCE_OFL_PACKETS | MROCE_OFL_TRANSPORT, -EOPNOTSUPP);
	REFUSED("DATAPATH, not accepted by this mroce: -EOPNOTSUPP", caps,
		MROCE_OFL_DATAPATH, -EOPNOTSUPP);
	REFUSED("OBJECTS without cmd: -EINVAL", caps,
		MROCE_OFL_PACKETS | MROCE_OFL_OBJECTS, -EINVAL);
	REFUSED("cmd without OBJECTS: -EINVAL", cmd, t_cmd, -EINVAL);
	REFUSED("doorbell without OBJECTS: -EINVAL", doorbell, t_doorbell,
		-EINVAL);
	REFUSED("query_counters without names: -EINVAL", query_counters,
		t_query_counters, -EINVAL);
	REFUSED("counter names without query_counters: -EINVAL",
		counter_names, t_names, -EINVAL);
	do {
		struct mroce_offload o = GOOD;

		o.query_counters = t_query_counters;
		o.counter_names = t_names;
		o.ncounters = MROCE_OFL_MAX_COUNTERS + 1;
		refused("more counters than MROCE_OFL_MAX_COUNTERS: -EINVAL", o,
			-EINVAL);
		o.ncounters = 2;
		o.counter_names = t_bad_names;
		refused("a counter name with a space: -EINVAL", o, -EINVAL);
		o.counter_names = t_names;
		refused("two named counters and query_counters: accepted (0)", o,
			busy ? -EBUSY : 0);
	} while (0);
	do {
		struct mroce_offload o = GOOD;

		o.caps = MROCE_OFL_OBJECTS;
		o.cmd = t_cmd;
		refused("OBJECTS is a feature, not a level: alone, -EINVAL", o,
			-EINVAL);
		o.caps |= MROCE_OFL_PACKETS;
		refused("PACKETS with OBJECTS and cmd: accepted (0)", o,
			busy ? -EBUSY : 0);
	} while (0);
}

static void one_slot(void)
{
	int err;

	err = mroce_offload_register(&good);
	if (busy) {
		expect("a good table while another offload is registered: -EBUSY",
		       err, -EBUSY);
		if (!err)
			mroce_offload_unregister(&good);
		return;
	}
	expect("a good table: 0", err, 0);
	expect("a second offload while one is registered: -EBUSY",
	       mroce_offload_register(&other), -EBUSY);
	mroce_offload_unregister(&other);	/* not registered: no effect */
	expect("unregistering a table that is not registered changes nothing",
	       mroce_offload_register(&other), -EBUSY);
	mroce_offload_unregister(&good);
	expect("after unregister the slot is free", mroce_offload_register(&other),
	       0);
	mroce_offload_unregister(&other);
	expect("the same table registers again", mroce_offload_register(&good), 0);
	mroce_offload_unregister(&good);
}

static int __init t_init(void)
{
	bad_tables();
	one_slot();
	if (obj_netdev[0]) {
		held.caps |= MROCE_OFL_OBJECTS;
		held.cmd = t_cmd;
		held.doorbell = t_doorbell;
		held.counter_names = t_names;
		held.ncounters = ARRAY_SIZE(t_names);
		held.query_counters = t_query_counters;
	}
	if (hold && !busy)
		expect("hold: a table stays registered",
		       mroce_offload_register(&held), 0);
	pr_info("%d cases, %d failed\n", ncase, failed);
	return 0;
}

static void __exit t_exit(void)
{
	if (hold && !busy)
		mroce_offload_unregister(&held);
}

module_init(t_init);
module_exit(t_exit);
MODULE_DESCRIPTION("mroce offload boundary: registration contract checks");
MODULE_LICENSE("Dual BSD/GPL");
