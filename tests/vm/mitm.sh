# shellcheck shell=bash
# The conformance suite's tier 3 (tests/conformance/mitm.py: a man in the
# middle relaying every frame between two implementations, impairing the
# MetaRoCE DATA packets per case: drop, duplicate, reorder, CE-mark, kill a
# path) with the kernel module as the SERVER: mitm.py --server-module puts
# an mroce device (mM) on the server's veth in the server's namespace
# (198.18.0.1, MetaRoCE port 4796) and runs mroce-epside there on the TCP
# side channel's port, one session per case; the client is mroce-ep in
# node mode (198.18.0.2), in a namespace of its own. What a case reads of
# the server comes from mM's hw_counters (their change over the case);
# each check's note in the table says whether it judged mroce-ep, the
# module or both (tests/conformance/README.md, "What tier 3 checks").
#
# Asserted: mitm.py ends with every MUST passed (its exit status), and no
# kernel report in the log. Figures: its table and summary, each case's
# wire and counter figures (its stderr), mroce-epside's sessions.
#
#   make module provider tools ep
#   scripts/vm/run-guest.sh -y -P -f build/ep/mroce-ep -f tests/conformance \
#       -t 600 -n mitm tests/vm/mitm.sh [-- ARGS]
#     ops=300          WRITE + READ pairs per case (mitm.py --ops)
#     seed=N           the impairments' seed (default: a random one, printed)
#     only=CASE        one case (and the clean one, always run first)
#
# (-y: the python image, python3 and rdma-core; -P shares mroce.ko, the
# provider, build/tests/ (mroce-epside) and tests/vm/*.sh; -f is
# repeatable: mroce-ep, and the suite's folder as /mnt/host/conformance.)
# Not a step of scripts/test.sh yet. Results in $RIG_OUT/mitm/
# (scripts/vm/runs/mitm/share/out/mitm/ on the host).
. /mnt/host/lib.sh

ARGS=()
for a in "$@"; do
	case $a in
	ops=*) ARGS+=(--ops "${a#*=}");;
	seed=*) ARGS+=(--seed "${a#*=}");;
	only=*) ARGS+=(--only "${a#*=}");;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

SUITE=/mnt/host/conformance/mitm.py
OUT=${RIG_OUT:-/tmp}/mitm
DEV=mM
KBAD='WARNING:|BUG:|Oops|UBSAN|KASAN|possible circular|soft lockup|rcu_sched|hung_task|list_add corruption|list_del corruption'

t_ok "suite present ($SUITE; run-guest.sh -f tests/conformance)" test -f "$SUITE"
t_ok "install mroce" mroce_install
t_ok "load modules" modprobe -a ib_uverbs veth mroce
t_ok "mroce-ep shared (run-guest.sh -f build/ep/mroce-ep)" command -v mroce-ep
t_ok "mroce-epside shared (make tools)" command -v mroce-epside
k0=$(dmesg | wc -l)
mkdir -p "$OUT"
python3 "$SUITE" --ep "$(command -v mroce-ep)" --server-module $DEV \
	--epside "$(command -v mroce-epside)" --timeout $((120 * T_SCALE)) \
	--out "$OUT" "${ARGS[@]}" > "$OUT/suite.out" 2> "$OUT/suite.err"
rc=$?
grep -E '^conformance-mitm:|^  ' "$OUT/suite.err" | sed 's/^/# /'	# per case
grep -E '^\| MR-' "$OUT/suite.out" | sed 's/^/# /'
grep -E '^checks:|passed, .* failed|^conformance-mitm:' "$OUT/suite.out" | sed 's/^/# mitm: /'
t_ok "tier 3, the module as the server: every MUST passed (exit $rc)" test "$rc" -eq 0
t_ok "a table was written ($OUT/results.tsv)" test -s "$OUT/results.tsv"
t_ok "$DEV removed (mitm.py deletes it at the end)" \
	bash -c "! rdma dev show $DEV"
dmesg | tail -n +$((k0 + 1)) > "$OUT/dmesg"
t_ok "no kernel report in the log" bash -c "! grep -E '$KBAD' '$OUT/dmesg'"
t_ok "mroce unloads" t_wait 10 modprobe -r mroce
t_done
