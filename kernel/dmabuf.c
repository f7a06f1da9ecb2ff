// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dma-buf MRs: the exporter's buffer attached, pinned and mapped for the
 * CPU for as long as the MR lives (see mr.h for the rules).
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/overflow.h>
#include <linux/version.h>

#include "mr.h"
#include "mroce.h"

/* the rights that write into the buffer: the fd must be open for writing */
#define DMABUF_WRITE_RIGHTS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * The exporter moves the buffer (resv locked). Not while we hold the pin,
 * which we take before the MR is published and drop at dereg after the
 * last copy and the vunmap; as ib_umem_dmabuf_get_pinned() does.
 */
static void dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	pr_warn_ratelimited("dma-buf exporter moved a buffer a pinned MR holds\n");
}

static const struct dma_buf_attach_ops dmabuf_attach_ops = {
	.allow_peer2peer = false,	/* the CPU reaches it: no device memory */
	.move_notify = dmabuf_move_notify,
};

/*
 * The kernel mapping. Until 6.1 an importer calls dma_buf_vmap() without
 * the reservation lock and exporters take it themselves (drm_gem_ttm_vmap(),
 * drm_gem_vram_vmap(), i915): holding it here would deadlock on them. From
 * 6.2 dma_buf_vmap() wants it held; dma_buf_vmap_unlocked() takes it.
 */
static int dmabuf_vmap(struct dma_buf *d, struct iosys_map *map)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return dma_buf_vmap_unlocked(d, map);
#else
	return dma_buf_vmap(d, map);
#endif
}

static void dmabuf_vunmap(struct dma_buf *d, struct iosys_map *map)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	dma_buf_vunmap_unlocked(d, map);
#else
	dma_buf_vunmap(d, map);
#endif
}

/* the pin a dynamic attachment holds; a static exporter has none to give */
static int dmabuf_pin(struct dma_buf_attachment *a)
{
	int err;

	if (!dma_buf_attachment_is_dynamic(a))
		return 0;
	dma_resv_lock(a->dmabuf->resv, NULL);
	err = dma_buf_pin(a);
	dma_resv_unlock(a->dmabuf->resv);
	return err;
}

static void dmabuf_unpin(struct dma_buf_attachment *a)
{
	if (!dma_buf_attachment_is_dynamic(a))
		return;
	dma_resv_lock(a->dmabuf->resv, NULL);
	dma_buf_unpin(a);
	dma_resv_unlock(a->dmabuf->resv);
}

/*
 * The fd's mode must allow what the MR does with the buffer, as mmap(2)
 * asks of a shared mapping: reading always (every MR is a source), writing
 * for the rights that write into it.
 */
static int dmabuf_may(struct dma_buf *d, int access)
{
	fmode_t need = FMODE_READ;

	if (access & DMABUF_WRITE_RIGHTS)
		need |= FMODE_WRITE;
	return (d->file->f_mode & need) == need ? 0 : -EACCES;
}

int mroce_dmabuf_get(struct mroce_mr *mr, struct ib_device *ibdev, int fd,
		     u64 offset, u64 length, int access)
{
	struct dma_buf_attachment *a;
	struct dma_buf *d;
	u64 end;
	int err;

	if (!length || length > MROCE_MAX_MR_SIZE ||
	    check_add_overflow(offset, length, &end))
		return -EINVAL;
	d = dma_buf_get(fd);
	if (IS_ERR(d))
		return PTR_ERR(d);
	err = -EINVAL;
	if (end > d->size)
		goto err_put;
	err = dmabuf_may(d, access);
	if (err)
		goto err_put;
	/*
	 * A dynamic exporter (it has pin/unpin) may move the buffer until an
	 * attachment pins it: attach dynamically and pin. A static one cannot
	 * tell an importer of a move, so it keeps the buffer in place while
	 * attached (DRM's pins it in its attach op): attach statically, which
	 * maps nothing for a static exporter (a dynamic attachment to it
	 * would map it for a device at once, and we have no DMA device).
	 */
	if (dma_buf_is_dynamic(d))
		a = dma_buf_dynamic_attach(d, &ibdev->dev, &dmabuf_attach_ops,
					   mr);
	else
		a = dma_buf_attach(d, &ibdev->dev);
	if (IS_ERR(a)) {
		err = PTR_ERR(a);
		goto err_put;
	}
	err = dmabuf_pin(a);
	if (err) {
		ibdev_dbg(ibdev, "dma-buf: the exporter cannot pin: %d\n", err);
		err = -EOPNOTSUPP;
		goto err_detach;
	}
	err = dmabuf_vmap(d, &mr->dmabuf_map);
	if (err) {
		err = -EOPNOTSUPP;	/* the exporter has no kernel mapping */
		goto err_unpin;
	}
	if (mr->dmabuf_map.is_iomem) {
		err = -EOPNOTSUPP;
		goto err_vunmap;
	}
	mr->dmabuf = d;
	mr->dmabuf_attach = a;
	mr->kva = (u8 *)mr->dmabuf_map.vaddr + offset;
	return 0;

err_vunmap:
	dmabuf_vunmap(d, &mr->dmabuf_map);
err_unpin:
	dmabuf_unpin(a);
err_detach:
	dma_buf_detach(d, a);
err_put:
	dma_buf_put(d);
	return err;
}

void mroce_dmabuf_put(struct mroce_mr *mr)
{
	struct dma_buf *d = mr->dmabuf;

	dmabuf_vunmap(d, &mr->dmabuf_map);
	dmabuf_unpin(mr->dmabuf_attach);
	dma_buf_detach(d, mr->dmabuf_attach);
	dma_buf_put(d);
	mr->dmabuf = NULL;
}
