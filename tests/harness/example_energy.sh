#!/bin/sh
# example_energy.sh RUNNER EXAMPLE CHECKER DIR - run the timers example on the fake RAPL machine
# with energy from powercap, then check children + Unaccounted = parent (1e-9) in its JSON.
set -eu
runner=$1 example=$2 checker=$3 dir=$4
mkdir -p "$dir"
cd "$dir"
rc=0
ERGO_ENERGY=powercap ERGO_REPORT_JSON="$dir/report.json" ERGO_SAMPLE_MS=5 \
  "$runner" --watts=120 -- "$example" 2 || rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "example failed with status $rc" >&2; exit 1; }
exec "$checker" "$dir/report.json"
