#!/usr/bin/env bash
# random_table.sh [BENCH [OUTDIR]] - the README's table of random programs (SIMULATED), from one
# command: ergo-bench-tuning-random (BENCH, default build/bench/ergo-bench-tuning-random) on the
# traced seed ranges 1, 1001, 2001, 3001 and the held-out ranges 5001, 6001, 7001, 8001, 300
# programs each, with and without the sim node's work counter, as many ranges at once as the
# machine has cores (about 10 core-minutes in all here; RANDOM_N=N programs per range instead of
# 300 for a quick look).  Each range's output (FAIL lines, one `case` line per program, the last
# line) stays in OUTDIR (default: a temporary directory, named at the end), to compare two
# versions program by program.  Prints, per column: failing
# programs and failures per rule, the geometric means of online's and static's choices against
# the oracle and of online's tuning run against monitor, the worst figures.  A benchmark prints
# figures, it judges none.
set -eu
bench=${1:-build/bench/ergo-bench-tuning-random}
[ -x "$bench" ] || {
  echo "random_table.sh: '$bench' is not an executable (fix: build it, cmake --build build --target ergo-bench-tuning-random, or name it as the first argument)" >&2
  exit 2
}
n=${RANDOM_N:-300}
case $n in '' | *[!0-9]*)
  echo "random_table.sh: RANDOM_N='$n' is not valid: expected a whole number of programs per range (fix: RANDOM_N=300, the default)" >&2
  exit 2
  ;;
esac
out=${2:-$(mktemp -d /tmp/ergo-random-XXXXXX)}
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
# xargs hands each job its seed and mode after the fixed arguments: $0 the bench, $1 programs per
# range, $2 the directory, $3 the seed, $4 c (with the counter) or n (without).
# shellcheck disable=SC2016
for s in 1 1001 2001 3001 5001 6001 7001 8001; do
  echo "$s c"
  echo "$s n"
done | xargs -P "$jobs" -n 2 sh -c '
  if [ "$4" = n ]; then flag=--no-counter; else flag=; fi
  "$0" --random "$1" --seed "$3" --verbose $flag 2>/dev/null | grep -v "^  region" >"$2/$4.$3.out.tmp" &&
    mv "$2/$4.$3.out.tmp" "$2/$4.$3.out"' "$bench" "$n" "$out" || {
  echo "random_table.sh: a run of $bench failed (what it wrote is in $out; run its range again with --random $n --seed S to see why)" >&2
  exit 1
}

column() { # column NAME MODE SEEDS...: one column's figures from its ranges' files
  local name=$1 mode=$2
  shift 2
  local files=()
  for s in "$@"; do files+=("$out/$mode.$s.out"); done
  awk -v name="$name" '
    function geo(s, n) { return n ? exp(s / n) : 0 }
    /^case seed=/ && /on\/or=/ {
      for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "on/or" && kv[2] > 0) { son += log(kv[2]); non++ }
        if (kv[1] == "st/or" && kv[2] > 0) { sst += log(kv[2]); nst++ }
        if (kv[1] == "runE" && kv[2] > 0) { sre += log(kv[2]); nre++ }
        if (kv[1] == "runT" && kv[2] > 0) { srt += log(kv[2]); nrt++ }
      }
    }
    /^FAIL / { fail[$2]++ }
    /^random_programs=/ {
      for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "random_programs") progs += kv[2]
        else if (kv[1] == "failing_programs") failing += kv[2]
        else if (kv[1] == "empty_programs") empty += kv[2]
        else if (kv[1] ~ /^worst_/ && kv[2] > worst[kv[1]]) worst[kv[1]] = kv[2]
      }
    }
    END {
      printf "%-22s programs %d (empty %d), failing %d (final/unit_time/run_time/cost %d/%d/%d/%d)\n",
             name, progs, empty, failing, fail["final"], fail["unit_time"], fail["run_time"], fail["cost"]
      printf "%-22s online/oracle %.4f  static/oracle %.4f  tuning run energy %.4f time %.4f (geometric means)\n",
             "", geo(son, non), geo(sst, nst), geo(sre, nre), geo(srt, nrt)
      printf "%-22s worst final/monitor static %.4f online %.4f; worst unit time/(1+X) %.4f\n", "",
             worst["worst_static_vs_monitor"], worst["worst_online_vs_monitor"],
             worst["worst_unit_time_vs_bound"]
    }' "${files[@]}"
}
echo "SIMULATED (sim node; $n random programs per range, from $bench)"
column "traced, with counter" c 1 1001 2001 3001
column "traced, without" n 1 1001 2001 3001
column "held out, with" c 5001 6001 7001 8001
column "held out, without" n 5001 6001 7001 8001
echo "outputs in $out"
