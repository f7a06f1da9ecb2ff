/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The rdma-core private provider interface, PABI 34 (libibverbs 44.0 up to
 * 56), declared by us.
 *
 * Debian's libibverbs-dev ships only the public headers (infiniband/verbs.h);
 * the provider side (infiniband/driver.h, kern-abi.h) is not packaged. Only
 * what this provider uses is declared here. Layouts are fixed by libibverbs'
 * IBVERBS_PRIVATE_34 symbol version, so every struct below is checked with
 * _Static_assert against sizes and offsets measured from rdma-core v44.0's
 * own headers on x86_64 (the numbers are copied in; nothing is read at build
 * time). struct verbs_context is public (infiniband/verbs.h), so it is only
 * checked, not declared.
 *
 * Note for later work: between rdma-core 44 and 56 ibv_qp_ex / verbs_qp
 * grew by 8 bytes (v45) and ibv_port_attr by 4 (v49); the _ex QP commands
 * are therefore not safe across that range, the legacy ibv_cmd_create_qp is
 * (the extended QP is built on it). A provider built here for 44 and loaded
 * by libibverbs 45..56 would not be found extended by ibv_qp_to_qp_ex(),
 * which reads verbs_qp.comp_mask 8 bytes further on there.
 * rdma-core 57+ is PABI 57 and does not look for PABI-34 providers.
 */
#ifndef MROCE_PABI34_H
#define MROCE_PABI34_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#if !defined(__x86_64__)
#error "PABI 34 layouts are checked for x86_64 only"
#endif

/* ccan/list.h's node, as embedded in the structs below */
struct pabi34_list_node {
	struct pabi34_list_node *next, *prev;
};

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* an rdma device found by libibverbs, before a provider claims it */
struct verbs_sysfs_dev {
	struct pabi34_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;		/* enum rdma_driver_id */
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;		/* the kernel driver's uverbs_abi_ver */
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device;	/* first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct pabi34_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

struct verbs_mr;

/*
 * Every op a provider can supply, in the alphabetical order libibverbs
 * uses; verbs_set_ops() copies the non-NULL ones over the defaults, which
 * fail with EOPNOTSUPP. 76 pointers, 608 bytes.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
							  struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * Write-path commands: the uverbs header, then the core payload, then any
 * driver data (rdma-core builds these with its IBV_ABI_REQ macros).
 */
struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core_payload;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core_payload;
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core_payload;
};

struct ibv_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core_payload;
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_resize_cq core_payload;
};

struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_mw core_payload;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core_payload;
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_rereg_mr core_payload;
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core_payload;
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core_payload;
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core_payload;
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_srq core_payload;
};

struct ibv_post_send {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send core_payload;
};

/*
 * A QP as libibverbs sees it: ibv_qp_to_qp_ex() returns &qp_ex when
 * comp_mask has VERBS_QP_EX, so every provider QP starts with this (a QP
 * without the bit has no ibv_qp_ex). xrcd is set for XRC QPs only. The
 * union's size follows the public struct ibv_qp_ex, which rdma-core 45 grew
 * by one op (wr_flush): the checks below pin 44's layout.
 */
struct verbs_xrcd;

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;		/* enum below */
	struct verbs_xrcd *xrcd;
};

enum {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

/*
 * A CQ as libibverbs sees it: ibv_create_cq() gets the ibv_cq, and
 * ibv_create_cq_ex() the ibv_cq_ex, of which ibv_cq is the first part
 * (ibv_cq_ex_to_cq() is a cast). Unchanged from rdma-core 44 to 56.
 */
struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* an ibv_mr as libibverbs allocates and frees it through the provider */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	uint32_t mr_type;		/* enum ibv_mr_type (in driver.h) */
	int access;
};

/* exported by libibverbs.so.1 under IBVERBS_PRIVATE_34 */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));
void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct ibv_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

/* verbs_init_and_alloc_context(): a provider context embedding verbs_context */
#define pabi34_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb,   \
				      driver_id)			       \
	((typeof(drv_ctx_ptr))_verbs_init_and_alloc_context(		       \
		ibdev, cmd_fd, sizeof(*drv_ctx_ptr),			       \
		&((typeof(drv_ctx_ptr))NULL)->ctx_memb, (driver_id)))

/*
 * PROVIDER_DRIVER(): the alias lets static builds find the ops, the
 * constructor registers them when libibverbs dlopen()s the provider.
 */
#define PABI34_PROVIDER_DRIVER(provider_name, drv_struct)		       \
	extern const struct verbs_device_ops verbs_provider_##provider_name   \
		__attribute__((alias(#drv_struct)));			       \
	static __attribute__((constructor)) void			       \
	provider_name##_register_driver(void)				       \
	{								       \
		verbs_register_driver_34(&drv_struct);			       \
	}

/*
 * Layout checks: sizes and offsets measured from rdma-core v44.0 (x86_64).
 * sizeof(member) is checked too, so a type change cannot hide behind an
 * unchanged offset.
 */
#define PABI34_SIZE(type, size)						       \
	_Static_assert(sizeof(struct type) == (size), "PABI34 size " #type)
#define PABI34_MEMBER(type, member, off, size)				       \
	_Static_assert(offsetof(struct type, member) == (off) &&	       \
		       sizeof(((struct type *)0)->member) == (size),	       \
		       "PABI34 layout " #type "." #member)

PABI34_SIZE(verbs_match_ent, 24);
PABI34_SIZE(verbs_sysfs_dev, 992);
PABI34_SIZE(verbs_device_ops, 72);
PABI34_SIZE(verbs_device, 712);
PABI34_SIZE(verbs_context_ops, 608);
PABI34_SIZE(verbs_context, 648);
PABI34_SIZE(ibv_port_attr, 52);
PABI34_MEMBER(verbs_match_ent, driver_data, 0, 8);
PABI34_MEMBER(verbs_match_ent, u, 8, 8);
PABI34_MEMBER(verbs_match_ent, vendor, 16, 2);
PABI34_MEMBER(verbs_match_ent, device, 18, 2);
PABI34_MEMBER(verbs_match_ent, kind, 20, 1);
PABI34_MEMBER(verbs_sysfs_dev, entry, 0, 16);
PABI34_MEMBER(verbs_sysfs_dev, provider_data, 16, 8);
PABI34_MEMBER(verbs_sysfs_dev, match, 24, 8);
PABI34_MEMBER(verbs_sysfs_dev, flags, 32, 4);
PABI34_MEMBER(verbs_sysfs_dev, sysfs_name, 36, 64);
PABI34_MEMBER(verbs_sysfs_dev, sysfs_cdev, 104, 8);
PABI34_MEMBER(verbs_sysfs_dev, ibdev_name, 112, 64);
PABI34_MEMBER(verbs_sysfs_dev, ibdev_path, 176, 256);
PABI34_MEMBER(verbs_sysfs_dev, modalias, 432, 512);
PABI34_MEMBER(verbs_sysfs_dev, node_guid, 944, 8);
PABI34_MEMBER(verbs_sysfs_dev, driver_id, 952, 4);
PABI34_MEMBER(verbs_sysfs_dev, node_type, 956, 4);
PABI34_MEMBER(verbs_sysfs_dev, ibdev_idx, 960, 4);
PABI34_MEMBER(verbs_sysfs_dev, num_ports, 964, 4);
PABI34_MEMBER(verbs_sysfs_dev, abi_ver, 968, 4);
PABI34_MEMBER(verbs_sysfs_dev, time_created, 976, 16);
PABI34_MEMBER(verbs_device_ops, name, 0, 8);
PABI34_MEMBER(verbs_device_ops, match_min_abi_version, 8, 4);
PABI34_MEMBER(verbs_device_ops, match_max_abi_version, 12, 4);
PABI34_MEMBER(verbs_device_ops, match_table, 16, 8);
PABI34_MEMBER(verbs_device_ops, static_providers, 24, 8);
PABI34_MEMBER(verbs_device_ops, match_device, 32, 8);
PABI34_MEMBER(verbs_device_ops, alloc_context, 40, 8);
PABI34_MEMBER(verbs_device_ops, import_context, 48, 8);
PABI34_MEMBER(verbs_device_ops, alloc_device, 56, 8);
PABI34_MEMBER(verbs_device_ops, uninit_device, 64, 8);
PABI34_MEMBER(verbs_device, device, 0, 664);
PABI34_MEMBER(verbs_device, ops, 664, 8);
PABI34_MEMBER(verbs_device, refcount, 672, 4);
PABI34_MEMBER(verbs_device, entry, 680, 16);
PABI34_MEMBER(verbs_device, sysfs, 696, 8);
PABI34_MEMBER(verbs_device, core_support, 704, 8);
PABI34_MEMBER(verbs_context_ops, advise_mr, 0, 8);
PABI34_MEMBER(verbs_context_ops, alloc_dm, 8, 8);
PABI34_MEMBER(verbs_context_ops, alloc_mw, 16, 8);
PABI34_MEMBER(verbs_context_ops, alloc_null_mr, 24, 8);
PABI34_MEMBER(verbs_context_ops, alloc_parent_domain, 32, 8);
PABI34_MEMBER(verbs_context_ops, alloc_pd, 40, 8);
PABI34_MEMBER(verbs_context_ops, alloc_td, 48, 8);
PABI34_MEMBER(verbs_context_ops, async_event, 56, 8);
PABI34_MEMBER(verbs_context_ops, attach_counters_point_flow, 64, 8);
PABI34_MEMBER(verbs_context_ops, attach_mcast, 72, 8);
PABI34_MEMBER(verbs_context_ops, bind_mw, 80, 8);
PABI34_MEMBER(verbs_context_ops, close_xrcd, 88, 8);
PABI34_MEMBER(verbs_context_ops, cq_event, 96, 8);
PABI34_MEMBER(verbs_context_ops, create_ah, 104, 8);
PABI34_MEMBER(verbs_context_ops, create_counters, 112, 8);
PABI34_MEMBER(verbs_context_ops, create_cq, 120, 8);
PABI34_MEMBER(verbs_context_ops, create_cq_ex, 128, 8);
PABI34_MEMBER(verbs_context_ops, create_flow, 136, 8);
PABI34_MEMBER(verbs_context_ops, create_flow_action_esp, 144, 8);
PABI34_MEMBER(verbs_context_ops, create_qp, 152, 8);
PABI34_MEMBER(verbs_context_ops, create_qp_ex, 160, 8);
PABI34_MEMBER(verbs_context_ops, create_rwq_ind_table, 168, 8);
PABI34_MEMBER(verbs_context_ops, create_srq, 176, 8);
PABI34_MEMBER(verbs_context_ops, create_srq_ex, 184, 8);
PABI34_MEMBER(verbs_context_ops, create_wq, 192, 8);
PABI34_MEMBER(verbs_context_ops, dealloc_mw, 200, 8);
PABI34_MEMBER(verbs_context_ops, dealloc_pd, 208, 8);
PABI34_MEMBER(verbs_context_ops, dealloc_td, 216, 8);
PABI34_MEMBER(verbs_context_ops, dereg_mr, 224, 8);
PABI34_MEMBER(verbs_context_ops, destroy_ah, 232, 8);
PABI34_MEMBER(verbs_context_ops, destroy_counters, 240, 8);
PABI34_MEMBER(verbs_context_ops, destroy_cq, 248, 8);
PABI34_MEMBER(verbs_context_ops, destroy_flow, 256, 8);
PABI34_MEMBER(verbs_context_ops, destroy_flow_action, 264, 8);
PABI34_MEMBER(verbs_context_ops, destroy_qp, 272, 8);
PABI34_MEMBER(verbs_context_ops, destroy_rwq_ind_table, 280, 8);
PABI34_MEMBER(verbs_context_ops, destroy_srq, 288, 8);
PABI34_MEMBER(verbs_context_ops, destroy_wq, 296, 8);
PABI34_MEMBER(verbs_context_ops, detach_mcast, 304, 8);
PABI34_MEMBER(verbs_context_ops, free_context, 312, 8);
PABI34_MEMBER(verbs_context_ops, free_dm, 320, 8);
PABI34_MEMBER(verbs_context_ops, get_srq_num, 328, 8);
PABI34_MEMBER(verbs_context_ops, import_dm, 336, 8);
PABI34_MEMBER(verbs_context_ops, import_mr, 344, 8);
PABI34_MEMBER(verbs_context_ops, import_pd, 352, 8);
PABI34_MEMBER(verbs_context_ops, modify_cq, 360, 8);
PABI34_MEMBER(verbs_context_ops, modify_flow_action_esp, 368, 8);
PABI34_MEMBER(verbs_context_ops, modify_qp, 376, 8);
PABI34_MEMBER(verbs_context_ops, modify_qp_rate_limit, 384, 8);
PABI34_MEMBER(verbs_context_ops, modify_srq, 392, 8);
PABI34_MEMBER(verbs_context_ops, modify_wq, 400, 8);
PABI34_MEMBER(verbs_context_ops, open_qp, 408, 8);
PABI34_MEMBER(verbs_context_ops, open_xrcd, 416, 8);
PABI34_MEMBER(verbs_context_ops, poll_cq, 424, 8);
PABI34_MEMBER(verbs_context_ops, post_recv, 432, 8);
PABI34_MEMBER(verbs_context_ops, post_send, 440, 8);
PABI34_MEMBER(verbs_context_ops, post_srq_ops, 448, 8);
PABI34_MEMBER(verbs_context_ops, post_srq_recv, 456, 8);
PABI34_MEMBER(verbs_context_ops, query_device_ex, 464, 8);
PABI34_MEMBER(verbs_context_ops, query_ece, 472, 8);
PABI34_MEMBER(verbs_context_ops, query_port, 480, 8);
PABI34_MEMBER(verbs_context_ops, query_qp, 488, 8);
PABI34_MEMBER(verbs_context_ops, query_qp_data_in_order, 496, 8);
PABI34_MEMBER(verbs_context_ops, query_rt_values, 504, 8);
PABI34_MEMBER(verbs_context_ops, query_srq, 512, 8);
PABI34_MEMBER(verbs_context_ops, read_counters, 520, 8);
PABI34_MEMBER(verbs_context_ops, reg_dm_mr, 528, 8);
PABI34_MEMBER(verbs_context_ops, reg_dmabuf_mr, 536, 8);
PABI34_MEMBER(verbs_context_ops, reg_mr, 544, 8);
PABI34_MEMBER(verbs_context_ops, req_notify_cq, 552, 8);
PABI34_MEMBER(verbs_context_ops, rereg_mr, 560, 8);
PABI34_MEMBER(verbs_context_ops, resize_cq, 568, 8);
PABI34_MEMBER(verbs_context_ops, set_ece, 576, 8);
PABI34_MEMBER(verbs_context_ops, unimport_dm, 584, 8);
PABI34_MEMBER(verbs_context_ops, unimport_mr, 592, 8);
PABI34_MEMBER(verbs_context_ops, unimport_pd, 600, 8);
PABI34_SIZE(ibv_get_context, 16);
PABI34_MEMBER(ibv_get_context, hdr, 0, 8);
PABI34_MEMBER(ibv_get_context, core_payload, 8, 8);
PABI34_SIZE(ibv_query_port, 24);
PABI34_MEMBER(ibv_query_port, hdr, 0, 8);
PABI34_MEMBER(ibv_query_port, core_payload, 8, 16);
PABI34_SIZE(ibv_alloc_pd, 16);
PABI34_MEMBER(ibv_alloc_pd, hdr, 0, 8);
PABI34_MEMBER(ibv_alloc_pd, core_payload, 8, 8);

PABI34_SIZE(ibv_rereg_mr, 56);
PABI34_MEMBER(ibv_rereg_mr, core_payload, 8, 48);
PABI34_SIZE(verbs_mr, 56);
PABI34_MEMBER(verbs_mr, ibv_mr, 0, 48);
PABI34_MEMBER(verbs_mr, mr_type, 48, 4);
PABI34_MEMBER(verbs_mr, access, 52, 4);
PABI34_SIZE(verbs_qp, 368);
PABI34_MEMBER(verbs_qp, qp, 0, 160);
PABI34_MEMBER(verbs_qp, qp_ex, 0, 352);
PABI34_MEMBER(verbs_qp, comp_mask, 352, 4);
PABI34_MEMBER(verbs_qp, xrcd, 360, 8);
/*
 * struct ibv_qp_ex is public; its size is in the measured data, the
 * offsets of the ops we fill were measured from Debian's libibverbs-dev
 * 44.0 (the public verbs.h of v44.0).
 */
PABI34_SIZE(ibv_qp_ex, 352);
PABI34_MEMBER(ibv_qp_ex, qp_base, 0, 160);
PABI34_MEMBER(ibv_qp_ex, comp_mask, 160, 8);
PABI34_MEMBER(ibv_qp_ex, wr_id, 168, 8);
PABI34_MEMBER(ibv_qp_ex, wr_flags, 176, 4);
PABI34_MEMBER(ibv_qp_ex, wr_atomic_cmp_swp, 184, 8);
PABI34_MEMBER(ibv_qp_ex, wr_atomic_fetch_add, 192, 8);
PABI34_MEMBER(ibv_qp_ex, wr_bind_mw, 200, 8);
PABI34_MEMBER(ibv_qp_ex, wr_local_inv, 208, 8);
PABI34_MEMBER(ibv_qp_ex, wr_rdma_read, 216, 8);
PABI34_MEMBER(ibv_qp_ex, wr_rdma_write, 224, 8);
PABI34_MEMBER(ibv_qp_ex, wr_rdma_write_imm, 232, 8);
PABI34_MEMBER(ibv_qp_ex, wr_send, 240, 8);
PABI34_MEMBER(ibv_qp_ex, wr_send_imm, 248, 8);
PABI34_MEMBER(ibv_qp_ex, wr_send_inv, 256, 8);
PABI34_MEMBER(ibv_qp_ex, wr_send_tso, 264, 8);
PABI34_MEMBER(ibv_qp_ex, wr_set_ud_addr, 272, 8);
PABI34_MEMBER(ibv_qp_ex, wr_set_xrc_srqn, 280, 8);
PABI34_MEMBER(ibv_qp_ex, wr_set_inline_data, 288, 8);
PABI34_MEMBER(ibv_qp_ex, wr_set_inline_data_list, 296, 8);
PABI34_MEMBER(ibv_qp_ex, wr_set_sge, 304, 8);
PABI34_MEMBER(ibv_qp_ex, wr_set_sge_list, 312, 8);
PABI34_MEMBER(ibv_qp_ex, wr_start, 320, 8);
PABI34_MEMBER(ibv_qp_ex, wr_complete, 328, 8);
PABI34_MEMBER(ibv_qp_ex, wr_abort, 336, 8);
PABI34_MEMBER(ibv_qp_ex, wr_atomic_write, 344, 8);
PABI34_SIZE(verbs_cq, 288);
PABI34_MEMBER(verbs_cq, cq, 0, 128);
PABI34_MEMBER(verbs_cq, cq_ex, 0, 288);
/*
 * struct ibv_cq_ex is public: its size is verbs_cq's in the measured data,
 * the offsets were measured from Debian's libibverbs-dev 44.0 (v44.0's
 * verbs.h; v56.0's has the same struct). Its first part must be ibv_cq's.
 */
PABI34_SIZE(ibv_cq, 128);
PABI34_SIZE(ibv_cq_ex, 288);
PABI34_MEMBER(ibv_cq, context, 0, 8);
PABI34_MEMBER(ibv_cq, channel, 8, 8);
PABI34_MEMBER(ibv_cq, cq_context, 16, 8);
PABI34_MEMBER(ibv_cq, handle, 24, 4);
PABI34_MEMBER(ibv_cq, cqe, 28, 4);
PABI34_MEMBER(ibv_cq, mutex, 32, 40);
PABI34_MEMBER(ibv_cq, cond, 72, 48);
PABI34_MEMBER(ibv_cq, comp_events_completed, 120, 4);
PABI34_MEMBER(ibv_cq, async_events_completed, 124, 4);
PABI34_MEMBER(ibv_cq_ex, context, 0, 8);
PABI34_MEMBER(ibv_cq_ex, channel, 8, 8);
PABI34_MEMBER(ibv_cq_ex, cq_context, 16, 8);
PABI34_MEMBER(ibv_cq_ex, handle, 24, 4);
PABI34_MEMBER(ibv_cq_ex, cqe, 28, 4);
PABI34_MEMBER(ibv_cq_ex, mutex, 32, 40);
PABI34_MEMBER(ibv_cq_ex, cond, 72, 48);
PABI34_MEMBER(ibv_cq_ex, comp_events_completed, 120, 4);
PABI34_MEMBER(ibv_cq_ex, async_events_completed, 124, 4);
PABI34_MEMBER(ibv_cq_ex, comp_mask, 128, 4);
PABI34_MEMBER(ibv_cq_ex, status, 132, 4);
PABI34_MEMBER(ibv_cq_ex, wr_id, 136, 8);
PABI34_MEMBER(ibv_cq_ex, start_poll, 144, 8);
PABI34_MEMBER(ibv_cq_ex, next_poll, 152, 8);
PABI34_MEMBER(ibv_cq_ex, end_poll, 160, 8);
PABI34_MEMBER(ibv_cq_ex, read_opcode, 168, 8);
PABI34_MEMBER(ibv_cq_ex, read_vendor_err, 176, 8);
PABI34_MEMBER(ibv_cq_ex, read_byte_len, 184, 8);
PABI34_MEMBER(ibv_cq_ex, read_imm_data, 192, 8);
PABI34_MEMBER(ibv_cq_ex, read_qp_num, 200, 8);
PABI34_MEMBER(ibv_cq_ex, read_src_qp, 208, 8);
PABI34_MEMBER(ibv_cq_ex, read_wc_flags, 216, 8);
PABI34_MEMBER(ibv_cq_ex, read_slid, 224, 8);
PABI34_MEMBER(ibv_cq_ex, read_sl, 232, 8);
PABI34_MEMBER(ibv_cq_ex, read_dlid_path_bits, 240, 8);
PABI34_MEMBER(ibv_cq_ex, read_completion_ts, 248, 8);
PABI34_MEMBER(ibv_cq_ex, read_cvlan, 256, 8);
PABI34_MEMBER(ibv_cq_ex, read_flow_tag, 264, 8);
PABI34_MEMBER(ibv_cq_ex, read_tm_info, 272, 8);
PABI34_MEMBER(ibv_cq_ex, read_completion_wallclock_ns, 280, 8);
PABI34_SIZE(ibv_resize_cq, 24);
PABI34_MEMBER(ibv_resize_cq, hdr, 0, 8);
PABI34_MEMBER(ibv_resize_cq, core_payload, 8, 16);
PABI34_SIZE(ibv_reg_mr, 48);
PABI34_MEMBER(ibv_reg_mr, hdr, 0, 8);
PABI34_MEMBER(ibv_reg_mr, core_payload, 8, 40);
PABI34_SIZE(ibv_create_cq, 40);
PABI34_MEMBER(ibv_create_cq, hdr, 0, 8);
PABI34_MEMBER(ibv_create_cq, core_payload, 8, 32);
PABI34_SIZE(ibv_create_qp, 64);
PABI34_MEMBER(ibv_create_qp, hdr, 0, 8);
PABI34_MEMBER(ibv_create_qp, core_payload, 8, 56);
PABI34_SIZE(ibv_modify_qp, 120);
PABI34_MEMBER(ibv_modify_qp, hdr, 0, 8);
PABI34_MEMBER(ibv_modify_qp, core_payload, 8, 112);
PABI34_SIZE(ibv_query_qp, 24);
PABI34_MEMBER(ibv_query_qp, hdr, 0, 8);
PABI34_MEMBER(ibv_query_qp, core_payload, 8, 16);
PABI34_SIZE(ibv_create_srq, 40);
PABI34_MEMBER(ibv_create_srq, hdr, 0, 8);
PABI34_MEMBER(ibv_create_srq, core_payload, 8, 32);
PABI34_SIZE(ibv_modify_srq, 24);
PABI34_MEMBER(ibv_modify_srq, hdr, 0, 8);
PABI34_MEMBER(ibv_modify_srq, core_payload, 8, 16);
PABI34_SIZE(ibv_post_send, 32);
PABI34_MEMBER(ibv_post_send, hdr, 0, 8);
PABI34_MEMBER(ibv_post_send, core_payload, 8, 24);
PABI34_SIZE(ibv_query_srq, 24);
PABI34_MEMBER(ibv_query_srq, hdr, 0, 8);
PABI34_MEMBER(ibv_query_srq, core_payload, 8, 16);
/* the header and core payload, as kern-abi.h's DECLARE_CMD lays them out */
PABI34_SIZE(ibv_alloc_mw, 24);
PABI34_MEMBER(ibv_alloc_mw, hdr, 0, 8);
PABI34_MEMBER(ibv_alloc_mw, core_payload, 8, 16);

#endif /* MROCE_PABI34_H */
