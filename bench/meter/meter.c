// SPDX-License-Identifier: GPL-2.0
/*
 * mroce's instruction meter: a QEMU TCG plugin (v1 plugin API, as Debian
 * bookworm's qemu 7.2 loads it) that counts the guest's instructions
 * between marks a guest program sets.
 *
 * Counting: every translated block gets an execution callback; a block of
 * n instructions adds n to its vCPU's kernel or user total (kernel: an
 * address in the upper half) and, for kernel blocks, to the block's own
 * per-vCPU execution count. Each vCPU thread writes only its own slots, so
 * counts are exact without atomics (a block left early by an interrupt
 * still counts whole). A vCPU's idle time is the host time between the
 * plugin's idle and resume callbacks.
 *
 * Marks: a guest program executes a `ret` in the two pages at MARK_VA
 * (bench/meter/mark.h). Page 0, offset 16 * id, opens window id; page 1
 * closes it. An open snapshots every counter; a close writes one line to
 * OUT (id, host ns, then per vCPU: kernel and user instructions, idle ns,
 * idle entries, all as differences since the open) and the kernel blocks
 * executed meanwhile to OUT.tb.SEQ ("address instructions execs-per-vCPU").
 * One window is open at a time; an open while one is open restarts it.
 *
 *   qemu-system-x86_64 ... -plugin build/bench/libmroce-meter.so,out=PATH
 *
 * The plugin API is declared here: Debian packages no plugin header.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdbool.h>
#include <pthread.h>
#include <time.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id,
					     unsigned int vcpu);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_idle_cb(qemu_plugin_id_t id,
				       qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_resume_cb(qemu_plugin_id_t id,
					 qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

#include "mark.h"

#define NCPU		8
#define KERNEL_VA	0xffff800000000000ull
#define HASH_BITS	16

/* one kernel block (address, length): its executions per vCPU */
struct block {
	uint64_t va;
	uint32_t n;
	uint64_t execs[NCPU];
	uint64_t base[NCPU];	/* execs at the window's open */
	struct block *next;	/* hash chain */
	struct block *all;	/* every block, for the snapshot */
};

struct vcpu {
	uint64_t insns[2];	/* [0] user, [1] kernel */
	uint64_t idle_ns, idle_n, idle_since;
	uint64_t base_insns[2], base_idle_ns, base_idle_n;
} __attribute__((aligned(64)));

static struct vcpu cpu[NCPU];
static struct block *hash[1u << HASH_BITS];
static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ncpu = NCPU;
static FILE *out;
static char *out_path;
static unsigned int seq;
static int open_id = -1;
static uint64_t open_ns;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void on_idle(qemu_plugin_id_t id, unsigned int v)
{
	(void)id;
	if (v >= NCPU)
		return;
	cpu[v].idle_since = now_ns();
	cpu[v].idle_n++;
}

static void on_resume(qemu_plugin_id_t id, unsigned int v)
{
	(void)id;
	if (v >= NCPU || !cpu[v].idle_since)
		return;
	cpu[v].idle_ns += now_ns() - cpu[v].idle_since;
	cpu[v].idle_since = 0;
}

static void exec_kernel(unsigned int v, void *ud)
{
	struct block *b = ud;

	if (v >= NCPU)
		return;
	cpu[v].insns[1] += b->n;
	b->execs[v]++;
}

static void exec_user(unsigned int v, void *ud)
{
	if (v >= NCPU)
		return;
	cpu[v].insns[0] += (uintptr_t)ud;
}

static void window_open(int id)
{
	struct block *b;
	int i;

	pthread_mutex_lock(&lock);
	for (b = blocks; b; b = b->all)
		memcpy(b->base, b->execs, sizeof(b->base));
	for (i = 0; i < ncpu; i++) {
		memcpy(cpu[i].base_insns, cpu[i].insns, sizeof(cpu[i].insns));
		cpu[i].base_idle_ns = cpu[i].idle_ns;
		cpu[i].base_idle_n = cpu[i].idle_n;
	}
	open_id = id;
	open_ns = now_ns();
	pthread_mutex_unlock(&lock);
}

static void window_close(int id)
{
	uint64_t wall = now_ns() - open_ns;
	struct block *b;
	char path[4096];
	FILE *tb;
	int i;

	pthread_mutex_lock(&lock);
	if (open_id != id || !out) {
		if (out)
			fprintf(out, "# close %d without its open (open %d)\n",
				id, open_id);
		goto unlock;
	}
	snprintf(path, sizeof(path), "%s.tb.%u", out_path, seq);
	tb = fopen(path, "w");
	for (b = blocks; b && tb; b = b->all) {
		uint64_t d[NCPU], sum = 0;

		for (i = 0; i < ncpu; i++)
			sum += d[i] = b->execs[i] - b->base[i];
		if (!sum)
			continue;
		fprintf(tb, "%llx %u", (unsigned long long)b->va, b->n);
		for (i = 0; i < ncpu; i++)
			fprintf(tb, " %llu", (unsigned long long)d[i]);
		fputc('\n', tb);
	}
	if (tb)
		fclose(tb);
	fprintf(out, "%u %d %d %llu", seq, id, ncpu, (unsigned long long)wall);
	for (i = 0; i < ncpu; i++)
		fprintf(out, " %llu %llu %llu %llu",
			(unsigned long long)(cpu[i].insns[1] - cpu[i].base_insns[1]),
			(unsigned long long)(cpu[i].insns[0] - cpu[i].base_insns[0]),
			(unsigned long long)(cpu[i].idle_ns - cpu[i].base_idle_ns),
			(unsigned long long)(cpu[i].idle_n - cpu[i].base_idle_n));
	fputc('\n', out);
	fflush(out);
	seq++;
	open_id = -1;
unlock:
	pthread_mutex_unlock(&lock);
}

static void exec_mark(unsigned int v, void *ud)
{
	uintptr_t off = (uintptr_t)ud;

	(void)v;
	if (off < MARK_PAGE)
		window_open((int)(off / MARK_SLOT));
	else
		window_close((int)((off - MARK_PAGE) / MARK_SLOT));
}

static struct block *block_get(uint64_t va, uint32_t n)
{
	unsigned int h = (unsigned int)((va ^ (va >> 17) ^ n) * 0x9e3779b1u) >>
			 (32 - HASH_BITS);
	struct block *b;

	pthread_mutex_lock(&lock);
	for (b = hash[h]; b; b = b->next)
		if (b->va == va && b->n == n)
			goto out;
	b = calloc(1, sizeof(*b));
	if (!b)
		goto out;
	b->va = va;
	b->n = n;
	b->next = hash[h];
	hash[h] = b;
	b->all = blocks;
	blocks = b;
out:
	pthread_mutex_unlock(&lock);
	return b;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	if (va >= MARK_VA && va < MARK_VA + 2 * MARK_PAGE)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_mark,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)(va - MARK_VA));
	if (va < KERNEL_VA) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_user,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)n);
		return;
	}
	b = block_get(va, (uint32_t)n);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_kernel,
						     QEMU_PLUGIN_CB_NO_REGS, b);
}

static void on_atexit(qemu_plugin_id_t id, void *ud)
{
	(void)id;
	(void)ud;
	if (out)
		fclose(out);
	out = NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "mroce meter: -plugin ...,out=PATH is needed\n");
		return -1;
	}
	if (info && info->system_emulation &&
	    info->system.smp_vcpus > 0 && info->system.smp_vcpus < NCPU)
		ncpu = info->system.smp_vcpus;
	out = fopen(out_path, "w");
	if (!out) {
		perror(out_path);
		return -1;
	}
	fprintf(out, "# mroce meter: seq id vcpus wall_ns {kernel user idle_ns idle_n} per vCPU\n");
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_vcpu_idle_cb(id, on_idle);
	qemu_plugin_register_vcpu_resume_cb(id, on_resume);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
