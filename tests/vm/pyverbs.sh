# shellcheck shell=bash
# rdma-core's own Python test suite (pyverbs, rdma-core 44) against mroce
# and against rdma_rxe in the same guest run, with per-test lists and a
# comparison (issue 4, section 6.3). Needs the python image and the test
# sources, which Debian ships gzipped in rdma-core's doc folder:
#
#   scripts/vm/run-guest.sh -y -P -t 2400 \
#       -f scripts/vm/stage/usr/share/doc/rdma-core/tests tests/vm/pyverbs.sh [-- ARGS]
#     drivers=mroce,rxe   which drivers (default both; mroce alone on the
#                         debug kernel)
#     only=PATTERN        run only tests whose id contains PATTERN
#     per_test=180        seconds one test may take (then it counts as error;
#                         x T_SCALE on the debug kernel)
#     cm_fix=1            0: run rdma-core's base.py as shipped (every RDMA-CM
#                         test then skips on soft devices; see runner.py below)
#
# Topology: rxe0 on vethA in init_net (policy routing recipe, topo.sh), mroce
# mA on vA in namespace nsA (its suite runs inside nsA). Every test case uses
# one device talking to itself (--dev NAME --gid IDX, the IPv4 RoCE v2 GID).
# Results in $RIG_OUT/pyverbs/: DRIVER.tsv (test, outcome, seconds, reason),
# DRIVER.log (unittest's verbose output), summary.txt. Checks:
#   - the suite ran on each driver
#   - no test failed or erred on mroce (skips are checked below)
#   - every test rxe passes, mroce passes too (the list of those it doesn't)
#   - every test mroce skips (and rxe does not) was skipped for "not
#     supported"/EOPNOTSUPP, not for something else
#   - test_qp_ex_rc_atomic_write passes on mroce (6.1's rxe fails it)
. /mnt/host/lib.sh
. /mnt/host/topo.sh

DRIVERS=mroce,rxe ONLY="" PER_TEST=$((180 * T_SCALE)) CM_FIX=1
# the debug kernel (T_SCALE 5): mroce alone; rdma_rxe draws KASAN reports of
# its own there (a slab-out-of-bounds read in rxe_mr_copy(), ucx.sh), which
# would fail the run for a driver it only compares
[ "$T_SCALE" -gt 1 ] && DRIVERS=mroce
for a in "$@"; do
	case $a in
	drivers=*) DRIVERS=${a#*=};; only=*) ONLY=${a#*=};; per_test=*) PER_TEST=${a#*=};;
	cm_fix=*) CM_FIX=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
O=${RIG_OUT:-/tmp}/pyverbs
mkdir -p "$O"
T0=$(cut -d' ' -f1 /proc/uptime)
uptime_s() { awk -v a="$T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{printf "%.0f", b-a}'; }

# the test sources: from the share (-f), else from the image
SRC=/mnt/host/tests
[ -f "$SRC/run_tests.py" ] || SRC=/usr/share/doc/rdma-core/tests
t_ok "pyverbs test sources ($SRC)" test -f "$SRC/run_tests.py"
rm -rf /tmp/pyt && mkdir -p /tmp/pyt && cp -a "$SRC" /tmp/pyt/tests && gunzip -f /tmp/pyt/tests/*.gz
echo "# $(ls /tmp/pyt/tests/test_*.py | wc -l) test modules"

# runner: unittest with per-test outcome, time and reason; a time limit per test
cat > /tmp/pyt/runner.py <<'EOF'
import os, signal, sys, time, traceback, unittest
from importlib.machinery import SourceFileLoader
tdir, out, per_test, only = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, tdir)
sys.argv = ['run_tests.py'] + sys.argv[5:]
from args_parser import parser
parser.parse_args()
tests = SourceFileLoader('tests', os.path.join(tdir, '__init__.py')).load_module()

# Soft devices (rxe, mroce) have no /sys/class/infiniband/DEV/device/net, so
# rdma-core 44's base.py finds no IP address and skips every RDMA-CM test
# ("doesn't have net interface"). Take the netdev of the GID instead (its
# gid_attrs/ndevs entry) and the address the GID is made of.
if os.environ.get('PYVERBS_CM_FIX', '1') == '1':
    import tests.base as base
    def _get_ip_mac(self, dev, port, idx):
        ip = mac = None
        try:
            pfx = f'/sys/class/infiniband/{dev}/ports/{port}'
            nd = open(f'{pfx}/gid_attrs/ndevs/{idx}').read().strip()
            ip, mac = self.get_ip_mac_address(nd)
            g = open(f'{pfx}/gids/{idx}').read().strip().split(':')
            if g[:6] == ['0000'] * 5 + ['ffff']:
                ip = '%d.%d.%d.%d' % (int(g[6][:2], 16), int(g[6][2:], 16),
                                      int(g[7][:2], 16), int(g[7][2:], 16))
        except Exception:
            pass
        self.args.append([dev, port, idx, ip, mac])
    base.RDMATestCase._get_ip_mac = _get_ip_mac

suite = unittest.TestLoader().loadTestsFromModule(tests)

def flat(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            yield from flat(t)
        else:
            yield t
if only:
    suite = unittest.TestSuite([t for t in flat(suite) if only in t.id()])

class TestTimeout(Exception):
    pass
def on_alarm(sig, frm):
    raise TestTimeout(f'no result after {per_test} s')
signal.signal(signal.SIGALRM, on_alarm)

def one_line(err):
    e = err[1]
    return (type(e).__name__ + ': ' + str(e)).replace('\n', ' ').replace('\t', ' ')[:300]

class Res(unittest.TextTestResult):
    rows = []
    def startTest(self, t):
        self.t0 = time.monotonic(); signal.alarm(per_test); super().startTest(t)
    def stopTest(self, t):
        signal.alarm(0); super().stopTest(t)
    def row(self, t, what, why=''):
        self.rows.append((t.id(), what, '%.1f' % (time.monotonic() - self.t0), why))
        with open(out, 'a') as f:
            f.write('\t'.join(self.rows[-1]) + '\n')
    def addSuccess(self, t): super().addSuccess(t); self.row(t, 'pass')
    def addSkip(self, t, why): super().addSkip(t, why); self.row(t, 'skip', str(why).replace('\n', ' ')[:300])
    def addFailure(self, t, err): super().addFailure(t, err); self.row(t, 'fail', one_line(err))
    def addError(self, t, err):
        super().addError(t, err)
        # errors of setUpClass & co come with a _ErrorHolder, no t0
        if not hasattr(self, 't0'): self.t0 = time.monotonic()
        self.row(t, 'error', one_line(err))
    def addExpectedFailure(self, t, err): super().addExpectedFailure(t, err); self.row(t, 'pass', 'expected failure')
    def addUnexpectedSuccess(self, t): super().addUnexpectedSuccess(t); self.row(t, 'fail', 'unexpected success')

open(out, 'w').close()
r = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=Res).run(suite)
print('ran %d: %d failures, %d errors, %d skipped' % (r.testsRun, len(r.failures), len(r.errors), len(r.skipped)))
EOF

run_suite() {	# run_suite DRIVER DEV GIDX [NETNS-PREFIX...]
	local drv=$1 dev=$2 gid=$3 t
	shift 3
	t=$(uptime_s)
	echo "# ----- $drv: $dev gid $gid, from ${*:-init_net} (at ${t} s)"
	(cd /tmp/pyt && PYVERBS_CM_FIX=$CM_FIX timeout -k 10 3000 "$@" python3 -u runner.py /tmp/pyt/tests "$O/$drv.tsv" "$PER_TEST" "$ONLY" \
		--dev "$dev" --gid "$gid" > "$O/$drv.log" 2>&1)
	echo "# $drv: $(tail -1 "$O/$drv.log") in $(( $(uptime_s) - t )) s"
	awk -F'\t' '{n[$2]++} END {for (k in n) printf "#   %s %d\n", k, n[k]}' "$O/$drv.tsv"
}

modprobe -a ib_uverbs rdma_ucm veth sch_netem
for d in ${DRIVERS//,/ }; do
	case $d in
	rxe)
		modprobe rdma_rxe
		topo_init
		t_ok "rxe: rdma link add rxe0 on vethA (init_net)" rdma link add rxe0 type rxe netdev vethA
		t_wait 10 gid_index rxe0 198.18.0.1 >/dev/null
		RXE_GID=$(gid_index rxe0 198.18.0.1)
		run_suite rxe rxe0 "$RXE_GID"
		t_ok "rxe: suite ran" test -s "$O/rxe.tsv";;
	mroce)
		t_ok "install module and provider" mroce_install
		modprobe mroce
		topo_netns mroce
		t_wait 10 gid_index mA 198.18.1.1 >/dev/null
		M_GID=$(gid_index mA 198.18.1.1)
		run_suite mroce mA "$M_GID" /usr/sbin/ip netns exec nsA
		t_ok "mroce: suite ran" test -s "$O/mroce.tsv";;
	esac
done

# ---- comparison ----
if [ -s "$O/rxe.tsv" ] && [ -s "$O/mroce.tsv" ]; then
	awk -F'\t' '
	FNR == NR { rx[$1] = $2; rxw[$1] = $4; next }
	{ mo[$1] = $2; mow[$1] = $4 }
	END {
		for (t in rx) if (rx[t] == "pass" && mo[t] != "pass")
			printf "RXE-ONLY-PASS\t%s\tmroce: %s\t%s\n", t, (t in mo ? mo[t] : "missing"), mow[t]
		for (t in mo) if (mo[t] == "skip" && rx[t] != "skip") {
			g = (mow[t] ~ /[Nn]ot supported|EOPNOTSUPP|Operation not supported|unsupported|not support/) ? "GENUINE-SKIP" : "OTHER-SKIP"
			printf "%s\t%s\trxe: %s\t%s\n", g, t, rx[t], mow[t]
		}
		for (t in mo) if (mo[t] == "pass" && rx[t] != "pass")
			printf "MROCE-ONLY-PASS\t%s\trxe: %s\t%s\n", t, rx[t], rxw[t]
	}' "$O/rxe.tsv" "$O/mroce.tsv" | sort > "$O/compare.tsv"
	{
		echo "pyverbs (rdma-core 44) on mroce and rdma_rxe, one guest run"
		for d in rxe mroce; do
			printf '%-6s' "$d:"
			awk -F'\t' '{n[$2]++} END {printf " pass %d, skip %d, fail %d, error %d (of %d)\n", n["pass"], n["skip"], n["fail"], n["error"], NR}' "$O/$d.tsv"
		done
		echo
		echo "Tests rxe passes and mroce does not ($(grep -c '^RXE-ONLY-PASS' "$O/compare.tsv")):"
		grep '^RXE-ONLY-PASS' "$O/compare.tsv" | cut -f2- | sed 's/^/  /'
		echo
		echo "Tests mroce skips and rxe does not, genuine 'not supported' ($(grep -c '^GENUINE-SKIP' "$O/compare.tsv")):"
		grep '^GENUINE-SKIP' "$O/compare.tsv" | cut -f2- | sed 's/^/  /'
		echo
		echo "Tests mroce skips and rxe does not, for other reasons ($(grep -c '^OTHER-SKIP' "$O/compare.tsv")):"
		grep '^OTHER-SKIP' "$O/compare.tsv" | cut -f2- | sed 's/^/  /'
		echo
		echo "Tests mroce passes and rxe does not ($(grep -c '^MROCE-ONLY-PASS' "$O/compare.tsv")):"
		grep '^MROCE-ONLY-PASS' "$O/compare.tsv" | cut -f2- | sed 's/^/  /'
	} > "$O/summary.txt"
	cat "$O/summary.txt"
	t_ok "mroce passes every test rxe passes" bash -c "! grep -q '^RXE-ONLY-PASS' $O/compare.tsv"
	t_ok "mroce's extra skips are all 'not supported'" bash -c "! grep -q '^OTHER-SKIP' $O/compare.tsv"
fi
# ATOMIC_WRITE (issue 34): passes on mroce, where 6.1's rxe fails it
AW=test_qp_ex_rc_atomic_write
if [ -s "$O/mroce.tsv" ] && { [ -z "$ONLY" ] || grep -q "$AW" "$O/mroce.tsv"; }; then
	echo "# $AW: mroce $(awk -F'\t' -v t="$AW" 'index($1, t) {print $2; exit}' "$O/mroce.tsv"), rxe $(awk -F'\t' -v t="$AW" 'index($1, t) {print $2; exit}' "$O/rxe.tsv" 2>/dev/null)"
	t_ok "mroce passes $AW" awk -F'\t' -v t="$AW" 'index($1, t) && $2 == "pass" {f = 1} END {exit !f}' "$O/mroce.tsv"
fi
[ ! -s "$O/mroce.tsv" ] ||
	t_ok "mroce: no test failed or erred" awk -F'\t' '$2 == "fail" || $2 == "error" {f = 1} END {exit f}' "$O/mroce.tsv"
for d in ${DRIVERS//,/ }; do
	[ -s "$O/$d.tsv" ] || continue
	echo "# $d: failures and errors"
	awk -F'\t' '$2 == "fail" || $2 == "error" {printf "#   %s %s (%s s): %s\n", $2, $1, $3, $4}' "$O/$d.tsv" | head -60
done
t_ok "kernel log clean" bash -c '! dmesg | grep -E "WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task"'
echo "# total $(uptime_s) s"
t_done
