// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A dma-buf exporter for tests: Debian's 6.1 kernel has no udmabuf
 * (CONFIG_UDMABUF is off) and no dma-buf heaps, so nothing hands userspace
 * a dma-buf there. /dev/mroce_dmabuf's ioctls (mroce_dmabuf_exp.h): CREATE
 * makes a buffer of zeroed pages and returns its dma-buf fd, which the
 * test maps (mmap of the fd) to write and check the bytes an RDMA device
 * places, and registers with ibv_reg_dmabuf_mr(); STATE tells what the
 * exporter sees of a buffer: attachments, pins, its kernel mapping. It
 * offers what a CPU-reachable exporter does: a kernel mapping (vmap) and
 * mmap; device DMA mappings (map_dma_buf) are refused, as nothing here has
 * a device. A buffer is dynamic (pin/unpin: it may be moved until an
 * importer pins it) unless CREATE asks for a static exporter; it may also
 * refuse every pin, or hand out an O_RDONLY or O_WRONLY fd.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mroce_dmabuf_exp.h"

#define MAX_SIZE	(64UL << 20)

struct xbuf {
	void *vaddr;		/* vmalloc_user() memory */
	size_t size;
	bool nopin;		/* pin fails */
	atomic_t attached, pinned, vmapped, pin_calls;
};

static int xbuf_attach(struct dma_buf *d, struct dma_buf_attachment *a)
{
	struct xbuf *b = d->priv;

	atomic_inc(&b->attached);
	return 0;
}

static void xbuf_detach(struct dma_buf *d, struct dma_buf_attachment *a)
{
	struct xbuf *b = d->priv;

	atomic_dec(&b->attached);
}

/* dma_buf_pin(), resv locked: vmalloc memory never moves, we only count */
static int xbuf_pin(struct dma_buf_attachment *a)
{
	struct xbuf *b = a->dmabuf->priv;

	dma_resv_assert_held(a->dmabuf->resv);
	atomic_inc(&b->pin_calls);
	if (b->nopin)
		return -EBUSY;
	atomic_inc(&b->pinned);
	return 0;
}

static void xbuf_unpin(struct dma_buf_attachment *a)
{
	struct xbuf *b = a->dmabuf->priv;

	dma_resv_assert_held(a->dmabuf->resv);
	atomic_dec(&b->pinned);
}

static struct sg_table *xbuf_map(struct dma_buf_attachment *a,
				 enum dma_data_direction dir)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void xbuf_unmap(struct dma_buf_attachment *a, struct sg_table *sgt,
		       enum dma_data_direction dir)
{
}

static int xbuf_vmap(struct dma_buf *d, struct iosys_map *map)
{
	struct xbuf *b = d->priv;

	iosys_map_set_vaddr(map, b->vaddr);
	atomic_inc(&b->vmapped);
	return 0;
}

static void xbuf_vunmap(struct dma_buf *d, struct iosys_map *map)
{
	struct xbuf *b = d->priv;

	atomic_dec(&b->vmapped);
}

static int xbuf_mmap(struct dma_buf *d, struct vm_area_struct *vma)
{
	struct xbuf *b = d->priv;

	return remap_vmalloc_range(vma, b->vaddr, vma->vm_pgoff);
}

static void xbuf_release(struct dma_buf *d)
{
	struct xbuf *b = d->priv;

	vfree(b->vaddr);
	kfree(b);
}

/* dynamic: pin/unpin */
static const struct dma_buf_ops xbuf_ops = {
	.attach = xbuf_attach,
	.detach = xbuf_detach,
	.pin = xbuf_pin,
	.unpin = xbuf_unpin,
	.map_dma_buf = xbuf_map,
	.unmap_dma_buf = xbuf_unmap,
	.vmap = xbuf_vmap,
	.vunmap = xbuf_vunmap,
	.mmap = xbuf_mmap,
	.release = xbuf_release,
};

/* static: the same without pin/unpin */
static const struct dma_buf_ops xbuf_static_ops = {
	.attach = xbuf_attach,
	.detach = xbuf_detach,
	.map_dma_buf = xbuf_map,
	.unmap_dma_buf = xbuf_unmap,
	.vmap = xbuf_vmap,
	.vunmap = xbuf_vunmap,
	.mmap = xbuf_mmap,
	.release = xbuf_release,
};

static int xbuf_create(struct mroce_dmabuf_create *c)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct dma_buf *d;
	struct xbuf *b;
	int fd;

	if (!c->size || c->size > MAX_SIZE ||
	    c->flags & ~(MROCE_DMABUF_F_RDONLY | MROCE_DMABUF_F_WRONLY |
			 MROCE_DMABUF_F_STATIC | MROCE_DMABUF_F_NOPIN) ||
	    (c->flags & MROCE_DMABUF_F_RDONLY && c->flags & MROCE_DMABUF_F_WRONLY) ||
	    (c->flags & MROCE_DMABUF_F_STATIC && c->flags & MROCE_DMABUF_F_NOPIN))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->size = PAGE_ALIGN(c->size);
	b->vaddr = vmalloc_user(b->size);
	if (!b->vaddr) {
		kfree(b);
		return -ENOMEM;
	}
	b->nopin = c->flags & MROCE_DMABUF_F_NOPIN;
	info.ops = c->flags & MROCE_DMABUF_F_STATIC ? &xbuf_static_ops : &xbuf_ops;
	info.size = b->size;
	/* the file's f_mode: FMODE_READ and/or FMODE_WRITE */
	info.flags = c->flags & MROCE_DMABUF_F_RDONLY ? O_RDONLY :
		     c->flags & MROCE_DMABUF_F_WRONLY ? O_WRONLY : O_RDWR;
	info.priv = b;
	d = dma_buf_export(&info);
	if (IS_ERR(d)) {
		vfree(b->vaddr);
		kfree(b);
		return PTR_ERR(d);
	}
	fd = dma_buf_fd(d, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(d);		/* releases b */
		return fd;
	}
	c->fd = fd;
	return 0;
}

static int xbuf_state(struct mroce_dmabuf_state *st)
{
	struct dma_buf *d = dma_buf_get(st->fd);
	struct xbuf *b;

	if (IS_ERR(d))
		return PTR_ERR(d);
	if (d->ops != &xbuf_ops && d->ops != &xbuf_static_ops) {
		dma_buf_put(d);
		return -EINVAL;		/* not one of ours */
	}
	b = d->priv;
	st->attached = atomic_read(&b->attached);
	st->pinned = atomic_read(&b->pinned);
	st->vmapped = atomic_read(&b->vmapped);
	st->pin_calls = atomic_read(&b->pin_calls);
	dma_buf_put(d);
	return 0;
}

static long xbuf_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct mroce_dmabuf_create c;
	struct mroce_dmabuf_state st;
	int err;

	if (cmd == MROCE_DMABUF_STATE) {
		if (copy_from_user(&st, (void __user *)arg, sizeof(st)))
			return -EFAULT;
		err = xbuf_state(&st);
		if (err)
			return err;
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ?
		       -EFAULT : 0;
	}
	if (cmd != MROCE_DMABUF_CREATE)
		return -ENOTTY;
	if (copy_from_user(&c, (void __user *)arg, sizeof(c)))
		return -EFAULT;
	err = xbuf_create(&c);
	if (err)
		return err;
	if (copy_to_user((void __user *)arg, &c, sizeof(c)))
		return -EFAULT;		/* the fd stays open: the caller's */
	return 0;
}

static const struct file_operations xbuf_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = xbuf_ioctl,
};

static struct miscdevice xbuf_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "mroce_dmabuf",
	.fops = &xbuf_fops,
};

module_misc_device(xbuf_dev);
MODULE_DESCRIPTION("dma-buf exporter for mroce's tests");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(DMA_BUF);
