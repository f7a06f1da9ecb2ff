#!/usr/bin/env python3
"""Timelines of single operations from the guest's kernel trace.

bench/meter/guest.sh trace=K leaves, per run, trace-ID.txt: the kernel's
trace (scheduling, interrupts, timers, packets, the drivers' own steps as
kprobes) of the client's work requests n/2 to n/2 + K, each marked
"mroce-op N" by bench/meter/shim.c. This script cuts each trace at the
marks (an operation is the stretch from its mark to the next) and writes,
per case and driver:

- events per operation over the K operations: packets by device and
  length, timers started and expired by function, timer interrupts,
  softirqs by kind, wakeups, context switches, idle entries and time per
  vCPU, worker items, the drivers' steps;
- the timeline of one operation (the one of median duration): every event with its
  time from the mark, its vCPU and what it was.

  timeline.py RUNDIR [--md FILE] [--ops N]   (RUNDIR holds runs.tsv, trace-*.txt)
"""
import argparse
import collections
import os
import re
import statistics
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s?(.*)$')
IDLE_EXIT = '4294967295'


def parse(path):
    ev = []
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if m:
                comm, _, cpu, ts, name, rest = m.groups()
                ev.append((float(ts) * 1e6, int(cpu), comm.strip(), name, rest))
    return ev


def field(rest, key):
    m = re.search(r'\b' + key + r'=(\S+)', rest)
    return m.group(1) if m else ''


def label(e):
    """(kind for the counts or None, text for the timeline or None)"""
    _, cpu, comm, name, rest = e
    if name == 'tracing_mark_write':
        return None, rest.strip()
    # events whose kind is a prefix and one field of the event's text
    kinds = {
        'net_dev_xmit': 'packet sent', 'netif_receive_skb': 'packet received',
        'hrtimer_start': 'hrtimer start', 'hrtimer_expire_entry': 'hrtimer expire',
        'timer_start': 'timer start', 'timer_expire_entry': 'timer expire',
    }
    if name in ('net_dev_xmit', 'netif_receive_skb'):
        k = '%s %s len %s' % (kinds[name], field(rest, 'dev'), field(rest, 'len'))
        return k, k
    if name in kinds:
        fn = re.search(r'function=(\S+)', rest)
        k = '%s %s' % (kinds[name], fn.group(1) if fn else '?')
        return k, k
    if name == 'hrtimer_cancel':
        return 'hrtimer cancel', None
    if name == 'local_timer_entry':
        return 'timer interrupt', 'timer interrupt'
    if name == 'softirq_entry':
        a = re.search(r'action=(\w+)', rest)
        k = 'softirq %s' % (a.group(1) if a else '?')
        return k, k
    if name == 'softirq_exit':
        return None, None
    if name == 'sched_wakeup':
        k = 'wakeup'
        return k, 'wakeup %s on cpu %s' % (field(rest, 'comm'), field(rest, 'target_cpu').lstrip('0') or '0')
    if name == 'sched_switch':
        return 'context switch', 'switch %s -> %s' % (field(rest, 'prev_comm'), field(rest, 'next_comm'))
    if name == 'workqueue_execute_start':
        fn = re.search(r'function (\S+)', rest)
        k = 'worker item %s' % (fn.group(1) if fn else '?')
        return k, k
    if name == 'mroce_loss':
        how = re.search(r'how (\S+)', rest)
        k = 'loss %s' % (how.group(1) if how else '?')
        d = re.search(r'(\S+) peer .* (path \d+ psn \d+ tsn \d+)', rest)
        return k, '%s %s %s' % (k, d.group(1), d.group(2)) if d else k
    if name == 'mroce_repath':
        return 'repath', 'repath'
    if name == 'cpu_idle':
        if field(rest, 'state') == IDLE_EXIT:
            return None, None
        return 'idle entry', None
    # a kprobe of tl/: the function's name is the event's
    return 'step ' + name, name


def ops_of(ev):
    """[(op number, start index, end index)] cut at the marks"""
    marks = [(i, int(e[4].split()[1])) for i, e in enumerate(ev)
             if e[3] == 'tracing_mark_write' and e[4].startswith('mroce-op ')]
    return [(n, i, marks[k + 1][0]) for k, (i, n) in enumerate(marks[:-1])]


def idle_time(ev, lo, hi):
    """per vCPU: µs idle inside [ev[lo], ev[hi]) (an idle spell cut at the ends)"""
    t0, t1 = ev[lo][0], ev[hi][0]
    since = {}
    # the state at the start: the last idle event of each vCPU before lo
    for e in ev[:lo]:
        if e[3] == 'cpu_idle':
            since[e[1]] = None if field(e[4], 'state') == IDLE_EXIT else t0
    out = collections.Counter()
    for e in ev[lo:hi]:
        if e[3] != 'cpu_idle':
            continue
        if field(e[4], 'state') == IDLE_EXIT:
            if since.get(e[1]) is not None:
                out[e[1]] += e[0] - since[e[1]]
            since[e[1]] = None
        else:
            since[e[1]] = e[0]
    for c, s in since.items():
        if s is not None:
            out[c] += t1 - s
    return out


def report(rundir, nops):
    runs = []
    with open(os.path.join(rundir, 'runs.tsv')) as f:
        hdr = f.readline().rstrip('\n').split('\t')
        for line in f:
            runs.append(dict(zip(hdr, line.rstrip('\n').split('\t'))))
    by_case = collections.OrderedDict()
    for r in runs:
        p = os.path.join(rundir, 'trace-%s.txt' % r['id'])
        if os.path.exists(p):
            by_case.setdefault(r['case'], collections.OrderedDict()).setdefault(r['driver'], []).append(p)
    out = []
    for case, drivers in by_case.items():
        out.append('### %s\n' % case)
        counts, times, lines, idle, nop = {}, {}, {}, {}, {}
        for d, paths in drivers.items():
            ev = parse(paths[0])
            ops = ops_of(ev)[:nops] if nops else ops_of(ev)
            nop[d] = len(ops)
            c = collections.Counter()
            it = collections.Counter()
            dur = []
            for _, lo, hi in ops:
                dur.append(ev[hi][0] - ev[lo][0])
                for e in ev[lo:hi]:
                    k, _ = label(e)
                    if k:
                        c[k] += 1
                it.update(idle_time(ev, lo, hi))
            counts[d] = c
            idle[d] = it
            times[d] = dur
            lines[d] = []
            if ops:
                # the operation of the median duration: a typical one
                n, lo, hi = sorted(ops, key=lambda o: ev[o[2]][0] - ev[o[1]][0])[len(ops) // 2]
                t0 = ev[lo][0]
                for e in ev[lo:hi + 1]:
                    _, text = label(e)
                    if text:
                        lines[d].append('| %8.1f | %d | %s | %s |' % (e[0] - t0, e[1], e[2], text))
        ds = list(drivers)
        out.append('Per operation, mean of %s operations (tracing on: times are slower than untraced):\n'
                   % ', '.join('%d (%s)' % (nop[d], d) for d in ds))
        out.append('| | ' + ' | '.join(ds) + ' |')
        out.append('|---|' + '---:|' * len(ds))
        out.append('| µs per operation, median | ' + ' | '.join(
            '%.1f' % statistics.median(times[d]) if times[d] else '-' for d in ds) + ' |')
        cpus = sorted(set(c for d in ds for c in idle[d]))
        for cpu in cpus:
            out.append('| vCPU %d idle µs | ' % cpu + ' | '.join(
                '%.1f' % (idle[d][cpu] / nop[d]) if nop[d] else '-' for d in ds) + ' |')
        keys = sorted(set(k for d in ds for k in counts[d]))
        for k in keys:
            out.append('| %s | ' % k + ' | '.join(
                '%.2f' % (counts[d][k] / nop[d]) if nop[d] else '-' for d in ds) + ' |')
        out.append('')
        for d in ds:
            if not lines[d]:
                continue
            out.append('One operation of median duration, %s (µs from its mark; the next mark ends it):\n' % d)
            out.append('| µs | vCPU | task | event |')
            out.append('|---:|---:|---|---|')
            out.extend(lines[d])
            out.append('')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('rundir')
    ap.add_argument('--md', help='write the report here (default: stdout)')
    ap.add_argument('--ops', type=int, default=0, help='use the first N operations of each trace')
    a = ap.parse_args()
    text = report(a.rundir, a.ops)
    if a.md:
        with open(a.md, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
