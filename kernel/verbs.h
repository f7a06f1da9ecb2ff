/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device and port queries, user contexts, protection domains. The objects
 * of the datapath have their own files: mr.c, cq.c, qp.c, srq.c, ah.c.
 */
#ifndef MROCE_VERBS_H
#define MROCE_VERBS_H

#include <rdma/ib_verbs.h>

enum ib_mtu mroce_ib_mtu(unsigned int netdev_mtu);

int mroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int mroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr);
int mroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey);
int mroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer mroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num);

int mroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void mroce_dealloc_ucontext(struct ib_ucontext *ibuc);
void mroce_disassociate_ucontext(struct ib_ucontext *ibuc);

int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif /* MROCE_VERBS_H */
