#!/bin/sh
# report_runs.sh ERGO APP DIR REAL_APP - the runs `ergo report`'s tests draw (tests/report.cmake), made with
# `ergo run` as `ergo demo` makes its own: on the sim node the mini-app untuned (monitor),
# calibrated by policy sweep (its model: every configuration measured), with that model applied
# (static) and tuned online (with its balance lines, which change as it tunes); then a short real
# run with the estimate meter, for a power timeline (the sampler does not run on the sim node):
# the annotated example REAL_APP, half a second of work that stays short under ThreadSanitizer
# (the mini-app's real OpenMP work takes minutes there); and the mini-app's oracle (the sim
# node's exhaustive best per region).
set -eu
ergo=$1 app=$2 dir=$3 real_app=$4
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
run() { # NAME ENV... -- ergo run args
  name=$1
  shift
  env "$@" > "$name.txt" 2>&1 || {
    echo "FAIL: the $name run failed; its output:"
    cat "$name.txt"
    exit 1
  }
}
run monitor ERGO_PLATFORM=sim \
  "$ergo" run --policy monitor --report-json monitor.json -- "$app" --steps 100
run sweep ERGO_PLATFORM=sim \
  "$ergo" run --policy sweep --model sweep-model.json --report-json sweep.json -- "$app" --steps 300
run static ERGO_PLATFORM=sim \
  "$ergo" run --policy static --model sweep-model.json --report-json static.json -- "$app" --steps 100
run online ERGO_PLATFORM=sim ERGO_BALANCE=online-balance.txt \
  "$ergo" run --policy online --model online-model.json --report-json online.json -- "$app" --steps 100
run real ERGO_PLATFORM=real ERGO_ENERGY=estimate ERGO_SAMPLE_MS=20 ERGO_POWER_CSV=power.csv \
  "$ergo" run --policy monitor --report-json real.json -- "$real_app"
"$app" --oracle --json > oracle.json
for f in oracle.json monitor.json online-balance.txt sweep-model.json static.json online.json power.csv; do
  test -s "$f" || {
    echo "FAIL: $dir/$f was not written"
    exit 1
  }
done
echo "report runs: OK"
