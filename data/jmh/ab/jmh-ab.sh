#!/usr/bin/env bash
# A/B runs for the six unexplained lab/JMH disagreements (issue 34). Hypotheses, expected results and the outcome: data/jmh/ab/README.md.
#
# Run from the main checkout after `make` (needs build/mechsym.jar, build/lib, build/jmh.jar, build/jmh-lib):
#   bash data/jmh/ab/jmh-ab.sh                 # all three groups, ~100 s of machine time in total
#   bash data/jmh/ab/jmh-ab.sh locks           # one group: locks | atomiclong | callerchoose
# Every arm is a fresh JVM; nothing is written inside the repository (logs and JMH JSON go to $OUT, in /tmp).
# Each lab row printed is: label fork | iteration warmup metric value (the kernel's CSV, last five columns).
# Environment: MAIN (default this checkout), JAVA (default JDK 17: the JMH runs and the lab runs above used it),
# FORKS (lab forks per arm, default 3), OUT (default a new /tmp/jmh-ab.XXXXXX).
set -euo pipefail

group() { [ $# -eq 0 ] || [ "$1" = all ] || [ "$1" = "$2" ]; }
WANT=${1:-all}
case "$WANT" in all|locks|atomiclong|callerchoose) ;; *) echo "jmh-ab: group '$WANT': allowed are all, locks, atomiclong, callerchoose" >&2; exit 2;; esac

MAIN=${MAIN:-$(cd "$(dirname "$0")/../../.." && pwd)}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
FORKS=${FORKS:-3}
OUT=${OUT:-$(mktemp -d /tmp/jmh-ab.XXXXXX)}
mkdir -p "$OUT"
cd "$MAIN"
for f in build/mechsym.jar build/jmh.jar; do
    [ -f "$f" ] || { echo "jmh-ab: $MAIN/$f missing: run make in $MAIN first" >&2; exit 2; }
done
[ -x "$JAVA" ] || { echo "jmh-ab: JAVA=$JAVA is not an executable java" >&2; exit 2; }
LABCP="build/mechsym.jar:build/lib/*"
JMHCP="build/jmh.jar:build/jmh-lib/*:build/lib/*:build/mechsym.jar"
echo "# jmh-ab: $(date -u +%FT%TZ) java=$JAVA forks=$FORKS out=$OUT commit=$(git rev-parse --short HEAD 2>/dev/null || echo ?)"

# lab LABEL FORK JVMFLAGS... -- KERNEL ARGS...: one fresh JVM of a lab kernel, its throughput/jit/gc rows
lab() {
    local label=$1 fork=$2; shift 2
    local flags=()
    while [ "$1" != "--" ]; do flags+=("$1"); shift; done
    shift
    "$JAVA" "${flags[@]}" -cp "$LABCP" "$@" \
        | awk -F, -v l="$label" -v f="$fork" 'NR > 1 && $(NF-2) ~ /^(throughput|jit_ms|gc_ms|gc_count)$/ {
              printf "%-28s fork %s | iter %s warmup %-5s %-10s %.4g\n", l, f, $(NF-4), $(NF-3), $(NF-2), $(NF-1) }'
}

# jmh LABEL JMH-OPTIONS...: one JMH invocation (the host JVM and its forks under taskset -c 0,1, as the stored JMH
# runs); prints every iteration of the primary metric and of gc.time when -prof gc is given
jmh() {
    local label=$1; shift
    local json="$OUT/$label.json"
    taskset -c 0,1 "$JAVA" -cp "$JMHCP" org.openjdk.jmh.Main "$@" -rf json -rff "$json" -jvm "$JAVA" \
        > "$OUT/$label.log" 2>&1 || { echo "$label: JMH failed, see $OUT/$label.log" >&2; return 1; }
    python3 - "$json" "$label" <<'EOF'
import json, sys
for b in json.load(open(sys.argv[1])):
    p = b["params"] if b.get("params") else {}
    name = sys.argv[2] + " " + " ".join(f"{k}={v}" for k, v in p.items())
    for label, m in [("score", b["primaryMetric"]), *(b.get("secondaryMetrics") or {}).items()]:
        if label in ("score", "gc.time", "gc.count"):
            for fork, its in enumerate(m["rawData"]):
                print(f"{name:40s} fork {fork} | {label:9s} " + " ".join(f"{v:.4g}" for v in its) + f" {m['scoreUnit']}")
EOF
}


# ------------------------------------------------------------------------------------------------------------------
# 1. locks, monitor-biased, threads 1 (lab 3.88e8, JMH 7.84e8). Hypothesis: the lab's main grid starts fresh worker
#    threads every run, so at the second run the monitor is biased toward a dead thread; its bias is revoked (a
#    handshake with the dead thread; JDK 17 does not re-bias it) and from then on it is a thin lock, coarsened by C2:
#    monitor-thin's figure. JMH's one thread per fork keeps the bias. A: the stored cell (fresh workers); B: the same
#    with --workers=reused; C: A without biased locking (-XX:-UseBiasedLocking). All log biased-locking events; the
#    script counts the revocation handshakes (A: one more than B, for the monitor). ~15 s.
if group "$WANT" locks; then
    echo "## locks monitor-biased threads 1: A fresh workers (stored) vs B reused workers; C fresh, no biased locking"
    for f in $(seq 1 "$FORKS"); do
        for arm in A B C; do
            workers=$([ $arm = B ] && echo reused || echo fresh)
            bias=$([ $arm = C ] && echo -XX:-UseBiasedLocking || echo -XX:+UseBiasedLocking)
            log="$OUT/locks-$arm-$f.log"
            lab "locks-$arm-$workers$bias" "$f" "$bias" -XX:BiasedLockingStartupDelay=0 \
                "-Xlog:biasedlocking*=trace:file=$log" -- \
                mechsym.locks.LockContention --lock=monitor --threads=1 --iterations=20000000 \
                --warmup-policy=short --warmup-iterations=100000 --runs=5 --workers=$workers \
                | grep throughput | grep -v 'warmup true'
            echo "locks-$arm fork $f | bias revocation handshakes: $(grep -c 'handshaking JavaThread' "$log" || true)"
        done
    done
fi

# ------------------------------------------------------------------------------------------------------------------
# 2. atomiclong, long-adder, threads 2 (lab 3.34e8, JMH 4.20e8). Hypothesis: the lab's one warm-up run (~35 ms) leaves
#    C2 compiling during the first measured run (stored: jit_ms 6-13 in run 1, 0 in runs 2-3; throughput 2.9e8 ->
#    3.6e8), on a 2-CPU machine where the compiler thread takes a CPU from one of the two incrementing threads.
#    A: the stored cell; B: --warmup-runs=40 (~1.2 s, JMH's 1.5 s of warm-up). C (follow-up, read only if B stays
#    below 3.78e8): B with 10x longer runs, which amortises the lab's per-run set-up (a fresh LongAdder whose cells
#    are created and collide under contention, fresh threads with new probes). M (mirror): JMH with the lab's
#    schedule, no warm-up and 30 ms iterations: JMH's own cold iterations. ~25 s.
if group "$WANT" atomiclong; then
    echo "## atomiclong long-adder threads 2: A 1 warm-up run (stored) vs B 40 warm-up runs; C longer runs; M JMH cold"
    for f in $(seq 1 "$FORKS"); do
        for arm in A B C; do
            case $arm in
                A) args=(--count=10000000 --runs=3 --warmup-runs=1) ;;
                B) args=(--count=10000000 --runs=3 --warmup-runs=40) ;;
                C) args=(--count=100000000 --runs=3 --warmup-runs=4) ;;
            esac
            lab "atomiclong-$arm" "$f" -- mechsym.atomic.AtomicIncrement --protocol=lab --variant=long-adder \
                --threads=2 "${args[@]}" | grep -v 'warmup true'
        done
    done
    jmh atomiclong-M-jmh-cold '^mechsym\.jmh\.AtomicLongIncrement\.increment$' -f 1 -wi 0 -i 4 -r 30ms -t 2 \
        -p variant=long-adder
fi

# ------------------------------------------------------------------------------------------------------------------
# 3. callerchoose, G1 (-Xmx1g -Xmn8m): split/list/set at words 8 (lab 6.19e6/6.0e6/4.6e6, JMH 1.03e7/9.76e6/5.59e6)
#    and list at words 1000 (6.05e4 vs 7.95e4). Hypothesis: warm-up too short: one ~50 ms warm-up run, then two
#    measured runs that still climb (stored split/8: 2.9e6 -> 5.2e6 -> 7.7e6) while C2 compiles (jit_ms 13 in run 1)
#    and the young collections are still slow (21 GCs: 20 -> 15 -> 6 ms); JMH measures after 1.5 s. A: the stored
#    cell; B: --warmup-runs=30 (~1.2 s). M (mirror, split/8 only): JMH with no warm-up and 50 ms iterations.
#    If B reaches JMH for set but not for split and list, the rest is the lab's per-call checksum (two
#    String.hashCode over fresh words in split and list; set's checksum is size()). ~45 s.
if group "$WANT" callerchoose; then
    echo "## callerchoose G1: A 1 warm-up run (stored) vs B 30 warm-up runs; M JMH cold (split, words 8)"
    G1=(-Xmx1g -Xmn8m -XX:+UseG1GC)
    for f in $(seq 1 "$FORKS"); do
        for cellargs in "split 8 300000" "list 8 300000" "set 8 300000" "list 1000 4000"; do
            read -r method words ops <<< "$cellargs"
            for arm in A B; do
                warm=$([ $arm = A ] && echo 1 || echo 30)
                lab "callerchoose-$arm-$method-$words" "$f" "${G1[@]}" -- mechsym.callerchoose.SplitCost \
                    --method="$method" --words="$words" --ops="$ops" --runs=2 --warmup-runs="$warm" \
                    | grep -v 'warmup true'
            done
        done
    done
    jmh callerchoose-M-jmh-cold '^mechsym\.jmh\.CallerChoose\.splitOnce$' -f 1 -wi 0 -i 3 -r 50ms -t 1 \
        -p method=split -p words=8 -prof gc -jvmArgsAppend "${G1[*]}"
fi
echo "# jmh-ab: done; logs and JMH JSON in $OUT"
