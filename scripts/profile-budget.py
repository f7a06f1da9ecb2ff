#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Per-operation time budget from the guest profile (bench/guest/profile.sh).

    scripts/profile-budget.py DIR [--engine-objs 'kernel/engine/*.o']
                                  [--glue-objs 'kernel/*.o']

DIR holds DRIVER-CASE.prof.syms.txt (perf report --sort comm,dso,sym of
`perf record -a -e cpu-clock`) and summary.tsv (the unprofiled figures).
Every sample that is not the idle loop is put in one category by its
symbol (mroce's own symbols are found with nm in the engine's and the
glue's objects; rxe's by the rxe_ prefix). Prints, per case, a markdown
table: each category's share of the busy samples and that share of the
operation's time: the latency (t_typical) for the _lat cases, one
message (size / bandwidth) for the bandwidth cases. In these tests the
whole round trip runs on the poster's CPU (veth hands each packet to the
receive softirq inline), so one operation costs about its latency in CPU
time; the split is of the samples of all CPUs, idle excluded.
"""
import glob
import os
import re
import subprocess
import sys

CATS = [
    # (name, what it covers)
    ("mroce engine", "kernel/engine: protocol, ACKs, SACK, CC, streams"),
    ("mroce glue", "kernel/*.c: doorbell, WQE and MR handling, placement, CQEs, skb build"),
    ("rxe", "rdma_rxe: requester, responder, completer, ICRC"),
    ("clock reads", "read_hpet, ktime_get*: the guest's clock is the emulated HPET"),
    ("hrtimers", "hrtimer start/cancel/expiry, clock event programming"),
    ("UDP/IP/veth", "UDP tunnel, IP output and input, routing, veth, netif, NAPI backlog"),
    ("skb and memory", "skb alloc/free, slab, memset/memcpy"),
    ("syscall and uverbs", "entry, write(), ib_uverbs command parsing"),
    ("locks, softirq, RCU", "spinlocks, bottom halves, softirq entry, RCU"),
    ("scheduler and irq", "context switches, wakeups, interrupt entry"),
    ("user space", "perftest, libibverbs, the provider, libc"),
    ("other kernel", "the rest"),
]

NET = re.compile(r"^(ip_|__ip_|ip4_|ip6_|udp|__udp|veth|fib|__fib|dev_|__dev_|netif|__netif|"
                 r"net_rx|napi|__napi|process_backlog|iptunnel|nf_|validate_xmit|eth_|neigh|"
                 r"dst_|inet_|__inet|raw_v4|rt_|__rt|csum|skb_checksum|sch_direct|"
                 r"qdisc|__qdisc|pfifo|sk_filter|__sk_|ipv4_|ipv6_|l3mdev|ip_route|tcp_v4_early|"
                 r"__netdev|netdev_|xfrm|icmp|skb_network|__skb_get_hash|skb_flow|__build_skb|"
                 r"__copy_skb|packet_rcv|dev_hard_start|__skb_flow|ip_rcv|ip_finish|ip_local)")
MEM = re.compile(r"^(kmem_|__kmem|kmalloc|__kmalloc|kfree|__kfree|slab|___slab|__slab|memset|"
                 r"memcpy|memmove|__memcpy|__memset|page_|__page|alloc_pages|__alloc|skb_release|"
                 r"consume_skb|skb_free|__skb_|skb_put|skb_push|skb_pull|build_skb|"
                 r"kmalloc_|__build_skb|skb_clone|___cache_free|__free|free_|get_page|"
                 r"clear_page|copy_page|__folio|folio_)")
CLOCK = re.compile(r"^(read_hpet|ktime_get|__ktime_get|ktime_get_real_ts64|__x64_sys_gettimeofday|"
                   r"do_gettimeofday|__vdso_gettimeofday|__vdso_clock_gettime|"
                   r"clock_gettime|__x64_sys_clock_gettime|posix_get|do_clock_gettime)")
TIMER = re.compile(r"^(hrtimer|__hrtimer|lapic_|clockevents_|tick_program|__remove_hrtimer|"
                   r"enqueue_hrtimer|timerqueue|__run_hrtimer|hrtimer_interrupt|"
                   r"__sysvec_apic_timer|sysvec_apic_timer|native_apic|apic_|x2apic|"
                   r"tick_|run_timer|__run_timers|__mod_timer|mod_timer|lock_hrtimer)")
SYSCALL = re.compile(r"(syscall|^entry_|^x64_sys|^__x64_sys|^ksys_|^vfs_|^ib_uverbs|^uverbs|"
                     r"^__fdget|^fput|^security_|^rw_verify|copy_from_user|copy_to_user|"
                     r"__check_object|^__fget|^fdget|^ib_uverbs|^__uverbs|^ib_cm|"
                     r"^rdma_|^ib_|^copy_user|^_copy|^check_|^exit_to_user|"
                     r"^syscall_exit|^__audit|^irqentry_exit_to_user|^do_syscall)")
LOCK = re.compile(r"(spin|_lock|_unlock|^__rcu|^rcu_|local_bh|^do_softirq|handle_softirqs|"
                  r"__do_softirq|^irq_exit|preempt|^__local_bh|raise_softirq|_trylock)")
SCHED = re.compile(r"^(schedule|__schedule|finish_task_switch|try_to_wake|wake_up|__wake_up|"
                   r"ttwu|enqueue_|dequeue_|update_|pick_next|select_task|psi_|"
                   r"sched_|__sched|irq_enter|irqentry|common_interrupt|asm_|"
                   r"__sysvec|sysvec_|ret_from|native_irq|default_idle_call|"
                   r"cpuidle|do_idle|account_|cpuacct|set_next|put_prev|load_balance|"
                   r"__update|reweight|place_entity|check_preempt|resched)")
IDLE = re.compile(r"(native_safe_halt|default_idle|cpuidle|do_idle|acpi_idle|pv_native_safe_halt|"
                  r"amd_e400_idle|arch_cpu_idle|mwait_idle|intel_idle)")


def nm_symbols(pattern):
    out = set()
    for obj in glob.glob(pattern):
        try:
            res = subprocess.run(["nm", "--defined-only", obj], capture_output=True,
                                 text=True, check=False)
        except OSError:
            continue
        for line in res.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1].lower() in "tw":
                out.add(parts[2].split(".")[0])
    return out


# the kernel's own symbols, first match wins
BY_NAME = [(CLOCK, "clock reads"), (TIMER, "hrtimers"), (NET, "UDP/IP/veth"),
           (MEM, "skb and memory"), (SYSCALL, "syscall and uverbs"),
           (LOCK, "locks, softirq, RCU"), (SCHED, "scheduler and irq")]


def category(dso, kind, sym, engine, glue):
    base = sym.split(".")[0]
    if kind == "[.]":
        return "user space"
    if base in engine:
        return "mroce engine"
    if base in glue:
        return "mroce glue"
    if base.startswith("rxe_") or dso == "[rdma_rxe]":
        return "rxe"
    for rx, name in BY_NAME:
        if rx.search(base):
            return name
    return "other kernel"


LINE = re.compile(r"^\s*([0-9.]+)%\s+(\S+)\s+(\S+)\s+(\[[.k]\])\s+(\S+)")


def parse(path, engine, glue):
    cats = {}
    busy = 0.0
    for line in open(path, encoding="utf-8", errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        pct, dso, kind, sym = float(m.group(1)), m.group(3), m.group(4), m.group(5)
        if IDLE.search(sym):
            continue
        busy += pct
        c = category(dso, kind, sym, engine, glue)
        cats[c] = cats.get(c, 0.0) + pct
    return busy, cats


def figures(path):
    fig = {}
    if not os.path.exists(path):
        return fig
    for line in open(path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 4 or f[0] == "driver" or f[2] != "0" or f[3] == "FAIL":
            continue
        fig.setdefault((f[0], f[1]), []).append(float(f[3]))
    return {k: sorted(v)[len(v) // 2] for k, v in fig.items()}


SIZES = {"write_bw4k": 4096}


def op_us(case, figure):
    """the time of one operation: latency, or one message at the bandwidth"""
    if case.endswith("_lat"):
        return figure, "latency (t_typical)"
    size = SIZES.get(case, 4096)
    return size / figure if figure else 0.0, "one %d B message at the median bandwidth" % size


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    d = args[0]
    eng_pat, glue_pat = "kernel/engine/*.o", "kernel/*.o"
    if "--engine-objs" in args:
        eng_pat = args[args.index("--engine-objs") + 1]
    if "--glue-objs" in args:
        glue_pat = args[args.index("--glue-objs") + 1]
    engine = nm_symbols(eng_pat)
    glue = nm_symbols(glue_pat) - engine
    if not engine or not glue:
        print("no engine or glue symbols (build the module first)", file=sys.stderr)
        return 1
    fig = figures(os.path.join(d, "summary.tsv"))
    files = sorted(glob.glob(os.path.join(d, "*.prof.syms.txt")))
    cases = []
    for f in files:
        drv, case = os.path.basename(f)[:-len(".prof.syms.txt")].split("-", 1)
        if case not in cases:
            cases.append(case)
    for case in cases:
        cols = []
        for drv in ("rxe", "mroce"):
            f = os.path.join(d, "%s-%s.prof.syms.txt" % (drv, case))
            if not os.path.exists(f):
                continue
            busy, cats = parse(f, engine, glue)
            t, what = op_us(case, fig.get((drv, case), 0.0))
            cols.append((drv, busy, cats, t))
        if not cols:
            continue
        print("\n#### %s (%s)\n" % (case, what))
        head = "| category | " + " | ".join("%s %% | %s µs" % (c[0], c[0]) for c in cols) + " |"
        print(head)
        print("|---|" + "---:|---:|" * len(cols))
        for name, _ in CATS:
            row = []
            for drv, busy, cats, t in cols:
                share = cats.get(name, 0.0) / busy if busy else 0.0
                row.append("%.1f | %.1f" % (100 * share, share * t))
            if all(r.startswith("0.0 |") for r in row):
                continue
            print("| %s | %s |" % (name, " | ".join(row)))
        print("| **total** | " + " | ".join("100 | %.1f" % c[3] for c in cols) + " |")
    print("\nCategories:\n")
    for name, what in CATS:
        print("- **%s**: %s" % (name, what))
    return 0


if __name__ == "__main__":
    sys.exit(main())
