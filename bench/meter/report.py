#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of the instruction meter (bench/meter/): per case and driver, the
guest's instructions per operation, split by module and function, with each
vCPU's share and idle time and the counts per operation of the kernel events
that cost time without costing instructions (context switches, timer
reprograms, softirq runs, worker items, wakeups, packets).

    bench/meter/report.py METER_DIR [--md OUT.md] [--tsv OUT.tsv] [--top N]

METER_DIR is the run's share/out/meter: meter.txt and meter.txt.tb.SEQ (the
plugin's), runs.tsv, kallsyms and modules (bench/meter/guest.sh's). A figure
per operation is the window's count divided by the operations in the window;
where a case ran more than once, the median, and the spread (largest minus
smallest over the median) says how far repetitions agree.
"""
import argparse
import bisect
import os
import re
import statistics
import sys

CATEGORIES = ["mroce", "mroce_swnic", "rdma_rxe", "ib_core/ib_uverbs",
              "UDP/IP/veth", "scheduler/timers/idle", "rest"]
IB_MODULES = {"ib_core", "ib_uverbs", "rdma_ucm", "rdma_cm", "ib_cm", "iw_cm"}
NET_MODULES = {"veth", "udp_tunnel", "ip6_udp_tunnel", "nf_conntrack",
               "ip6_tables", "ip_tables", "x_tables"}
NET_RE = re.compile(
    r"^_*(udp|ip|ipv4|ipv6|ip6|inet|inet6|dev_|netdev|netif|net_|napi|skb|"
    r"kfree_skb|consume_skb|alloc_skb|build_skb|neigh|fib|sock|sk_|eth_|"
    r"process_backlog|nf_|nft_|raw_|icmp|gro|validate_xmit|sch_|qdisc|"
    r"pfifo|tcp|rt_|dst_|xdp|do_xdp|csum|packet_|sock_|skb_)")
SCHED_RE = re.compile(
    r"(sched|switch_to|pick_next|enqueue|dequeue|update_curr|update_load|"
    r"update_cfs|update_rq|ttwu|try_to_wake|wake_up|select_task|"
    r"check_preempt|resched|tick|hrtimer|timer|clockevents|lapic|apic|ktime|"
    r"clock|idle|cpuidle|rcu|irq|softirq|sysvec|kvm_|read_tsc|hpet|account|"
    r"cpuacct|psi_|menu_|finish_task|context_switch|prepare_task|"
    r"run_ksoftirqd|smpboot|kthread|worker|process_one_work|queue_work|"
    r"insert_work|load_balance|nohz|native_|halt|mwait|x86_|__x2apic|"
    r"cpu_startup_entry|do_idle|arch_cpu_idle|default_idle|cpupri|"
    r"set_next_entity|put_prev|newidle|balance|calc_global|avg_)")

# kernel events counted as entries of one function each (a call or jump to
# a function's first instruction starts a translated block there)
EVENTS = [
    ("context switches", "__switch_to"),
    ("wakeups", "try_to_wake_up"),
    ("timer reprograms", "clockevents_program_event"),
    ("hrtimer starts", "hrtimer_start_range_ns"),
    ("softirq runs", "__do_softirq"),
    ("worker items", "process_one_work"),
    ("syscalls", "do_syscall_64"),
    ("timer interrupts", "__sysvec_apic_timer_interrupt"),
    # slow to emulate: the guest's clocksource is the HPET (qemu64 has no
    # stable TSC), a register read through the device model; a LAPIC timer
    # write leaves the translated code too
    ("HPET reads (clock)", "read_hpet"),
    ("LAPIC timer writes", "lapic_next_event"),
    ("packets sent (veth_xmit)", "veth_xmit"),
]


class Symbols:
    def __init__(self, path):
        syms = []
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) < 3 or p[1] not in "tTwW":
                    continue
                addr = int(p[0], 16)
                if not addr:
                    continue
                mod = p[3].strip("[]") if len(p) > 3 else ""
                syms.append((addr, p[2], mod))
        syms.sort()
        self.addr = [s[0] for s in syms]
        self.syms = syms
        self.by_name = {}
        for a, n, m in syms:
            self.by_name.setdefault(n, a)
        self.cache = {}

    def lookup(self, va):
        r = self.cache.get(va)
        if r is None:
            i = bisect.bisect_right(self.addr, va) - 1
            r = self.syms[i] if i >= 0 else (0, "?", "")
            self.cache[va] = r
        return r


def category(func, mod):
    if mod:
        if mod in ("mroce", "mroce_swnic", "rdma_rxe"):
            return mod
        if mod in IB_MODULES:
            return "ib_core/ib_uverbs"
        if mod in NET_MODULES:
            return "UDP/IP/veth"
        return "rest"
    if NET_RE.search(func):
        return "UDP/IP/veth"
    if SCHED_RE.search(func):
        return "scheduler/timers/idle"
    return "rest"


def read_windows(d):
    wins = {}
    with open(os.path.join(d, "meter.txt")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            p = [int(x) for x in line.split()]
            seq, wid, ncpu, wall = p[:4]
            cpus = [p[4 + 4 * i:8 + 4 * i] for i in range(ncpu)]
            wins[wid] = {"seq": seq, "wall_ns": wall, "cpus": cpus}
    return wins


def read_runs(d):
    runs = []
    with open(os.path.join(d, "runs.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            runs.append(r)
    return runs


def analyse(d, w, ops, syms):
    """per-operation figures of one window"""
    cat = dict.fromkeys(CATEGORIES, 0)
    func = {}
    entries = {}
    want = {syms.by_name.get(n): n for _, n in EVENTS if n in syms.by_name}
    with open(os.path.join(d, "meter.txt.tb.%d" % w["seq"])) as f:
        for line in f:
            p = line.split()
            va, n = int(p[0], 16), int(p[1])
            execs = sum(int(x) for x in p[2:])
            a, name, mod = syms.lookup(va)
            ins = n * execs
            cat[category(name, mod)] += ins
            key = name + (" [%s]" % mod if mod else "")
            func[key] = func.get(key, 0) + ins
            if va in want:
                entries[want[va]] = entries.get(want[va], 0) + execs
    r = {
        "kernel": sum(c[0] for c in w["cpus"]) / ops,
        "user": sum(c[1] for c in w["cpus"]) / ops,
        "wall_us": w["wall_ns"] / 1e3 / ops,
        "cpu": [{"kernel": c[0] / ops, "user": c[1] / ops,
                 "idle_us": c[2] / 1e3 / ops, "idle_n": c[3] / ops}
                for c in w["cpus"]],
        "cat": {k: v / ops for k, v in cat.items()},
        "func": {k: v / ops for k, v in func.items()},
        "events": {label: entries.get(n, 0) / ops for label, n in EVENTS},
    }
    return r


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs):
    m = med(xs)
    return (max(xs) - min(xs)) / m if len(xs) > 1 and m else 0.0


def fmt(x, digits=0):
    if x != x:
        return "-"
    return "{:,.{}f}".format(x, digits)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--md")
    ap.add_argument("--tsv")
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    syms = Symbols(os.path.join(a.dir, "kallsyms"))
    wins = read_windows(a.dir)
    runs = read_runs(a.dir)
    res = {}	# (case, driver) -> [per-op dict]
    missing = []
    order = []
    for r in runs:
        wid = int(r["id"])
        key = (r["case"], r["driver"])
        if r["case"] not in order:
            order.append(r["case"])
        if r["rc"] != "0" or wid not in wins:
            missing.append("%s %s rep %s (rc %s%s)" % (
                r["driver"], r["case"], r["rep"], r["rc"],
                "" if wid in wins else ", no window"))
            continue
        x = analyse(a.dir, wins[wid], int(r["ops"]), syms)
        x["figure"] = r["figure"]
        res.setdefault(key, []).append(x)
    drivers = []
    for r in runs:
        if r["driver"] not in drivers:
            drivers.append(r["driver"])
    out = []
    w = out.append
    w("| case | " + " | ".join(
        "%s kernel insns/op | %s spread" % (d, d) for d in drivers) +
        (" | %s/%s" % (drivers[-1], drivers[0]) if len(drivers) == 2 else "") +
        " | " + " | ".join("%s user insns/op" % d for d in drivers) +
        " | " + " | ".join("%s figure" % d for d in drivers) + " |")
    w("|---|" + "---:|" * (3 * len(drivers) + (1 if len(drivers) == 2 else 0)
                            + len(drivers)))
    tsv = ["case\tdriver\treps\tkernel_per_op\tkernel_spread\tuser_per_op\t"
           + "\t".join(c for c in CATEGORIES) + "\t"
           + "\t".join(label for label, _ in EVENTS)]
    for c in order:
        cells, ratio, users, figs = [], None, [], []
        ks = {}
        for d in drivers:
            xs = res.get((c, d), [])
            k = [x["kernel"] for x in xs]
            ks[d] = med(k)
            cells.append("%s | %.1f %%" % (fmt(med(k)), 100 * spread(k))
                         if k else "- | -")
            users.append(fmt(med([x["user"] for x in xs])) if xs else "-")
            figs.append(", ".join(x["figure"] for x in xs) or "-")
            if xs:
                tsv.append("\t".join([c, d, str(len(xs)), "%.1f" % med(k),
                                      "%.4f" % spread(k),
                                      "%.1f" % med([x["user"] for x in xs])]
                                     + ["%.1f" % med([x["cat"][g] for x in xs])
                                        for g in CATEGORIES]
                                     + ["%.3f" % med([x["events"][label] for x in xs])
                                        for label, _ in EVENTS]))
        if len(drivers) == 2 and ks[drivers[0]] == ks[drivers[0]] and ks[drivers[0]]:
            ratio = ks[drivers[1]] / ks[drivers[0]]
        w("| %s | %s%s | %s | %s |" % (
            c, " | ".join(cells),
            (" | %s" % ("%.2f" % ratio if ratio else "-")) if len(drivers) == 2 else "",
            " | ".join(users), " | ".join(figs)))
    w("")
    for c in order:
        have = [d for d in drivers if (c, d) in res]
        if not have:
            continue
        w("### %s" % c)
        w("")
        w("Kernel instructions per operation by part (medians):")
        w("")
        w("| part | " + " | ".join(have) + " |")
        w("|---|" + "---:|" * len(have))
        for g in CATEGORIES:
            w("| %s | %s |" % (g, " | ".join(
                fmt(med([x["cat"][g] for x in res[(c, d)]])) for d in have)))
        w("")
        w("Per operation (medians): events, and each vCPU's kernel instructions and idle time:")
        w("")
        w("| | " + " | ".join(have) + " |")
        w("|---|" + "---:|" * len(have))
        for label, _ in EVENTS:
            w("| %s | %s |" % (label, " | ".join(
                fmt(med([x["events"][label] for x in res[(c, d)]]), 2)
                for d in have)))
        ncpu = len(res[(c, have[0])][0]["cpu"])
        for i in range(ncpu):
            w("| vCPU %d kernel insns | %s |" % (i, " | ".join(
                fmt(med([x["cpu"][i]["kernel"] for x in res[(c, d)]]))
                for d in have)))
            w("| vCPU %d idle µs (entries) | %s |" % (i, " | ".join(
                "%s (%s)" % (fmt(med([x["cpu"][i]["idle_us"] for x in res[(c, d)]]), 1),
                             fmt(med([x["cpu"][i]["idle_n"] for x in res[(c, d)]]), 2))
                for d in have)))
        w("| wall µs under the meter | %s |" % " | ".join(
            fmt(med([x["wall_us"] for x in res[(c, d)]]), 1) for d in have))
        w("")
        for d in have:
            fs = {}
            for x in res[(c, d)]:
                for k, v in x["func"].items():
                    fs.setdefault(k, []).append(v)
            n = len(res[(c, d)])
            top = sorted(fs.items(), key=lambda kv: -sum(kv[1]) / n)[:a.top]
            w("Top kernel functions, %s (instructions per operation, mean of %d):" % (d, n))
            w("")
            w("| function | insns/op |")
            w("|---|---:|")
            for k, v in top:
                w("| `%s` | %s |" % (k, fmt(sum(v) / n)))
            w("")
    if missing:
        w("Runs without a figure: " + "; ".join(missing) + ".")
        w("")
    text = "\n".join(out)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("\n".join(tsv) + "\n")
    return 1 if missing and not res else 0


if __name__ == "__main__":
    sys.exit(main())
