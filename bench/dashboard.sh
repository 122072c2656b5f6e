#!/usr/bin/env bash
# dashboard.sh MINIAPP [STEPS [REPEATS]] - what the live dashboard costs a run: ergo's mini-app
# with real OpenMP work on this machine (ERGO_PLATFORM=real, the estimate meter, the online
# policy), REPEATS times (3) without ERGO_DASHBOARD and with it and a client reading /api/all
# every 100 ms, alternating.  Prints the least of each figure (noise only adds): the run times,
# the main thread's time spent publishing snapshots, and ergo's own time (hooks plus publishing)
# as a share of the run.  A benchmark prints figures, it judges none.
set -u
app=$(realpath "${1:?usage: dashboard.sh MINIAPP [STEPS [REPEATS]]}")
steps=${2:-20}
repeats=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
common=(ERGO_PLATFORM=real ERGO_ENERGY=estimate ERGO_POLICY=online ERGO_TUNE_PROGRESS=0
  ERGO_REPORT=report.txt ERGO_REPORT_STEPS=none ERGO_BALANCE=none ERGO_MODEL=model.json)
now() { date +%s.%N; }
run() { # run NAME [VAR=VALUE...]: the run's wall seconds in $dir/NAME.s
  local name=$1
  shift
  mkdir -p "$dir/$name"
  local t0 t1
  t0=$(now)
  (cd "$dir/$name" && env "${common[@]}" "$@" "$app" --steps "$steps" >out.txt 2>err.txt) || {
    echo "FAIL: the $name run failed:"
    cat "$dir/$name/err.txt"
    exit 1
  }
  t1=$(now)
  echo "$t1 - $t0" | bc -l >"$dir/$name.s"
}
client() { # read the dashboard until the run ends
  local url=""
  for _ in $(seq 1 300); do
    url=$(grep -o 'http://[^ ]*' "$dir/on/err.txt" 2>/dev/null | head -1)
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || return
  local base=${url%%\?*} token=${url##*token=} n=0
  while curl -sf -o /dev/null "${base}api/all?token=$token"; do
    n=$((n + 1))
    sleep 0.1
  done
  echo "$n" >"$dir/reads"
}
# Alternating runs, the least of each figure: this machine's noise (other processes) only adds.
min() { printf '%s\n' "$@" | sort -g | head -1; }
offs=() ons=() pubs=() hooks=() hooks_off=() reads=0 snaps=
for i in $(seq 1 "$repeats"); do
  run off ERGO_DASHBOARD=
  rm -f "$dir/on/err.txt" "$dir/reads"
  mkdir -p "$dir/on"
  client_pid=
  if command -v curl >/dev/null; then
    client &
    client_pid=$!
  fi
  run on ERGO_DASHBOARD=127.0.0.1:0
  [ -n "$client_pid" ] && wait "$client_pid"
  line=$(grep -o 'dashboard: [0-9]* snapshots published in [0-9.]* s' "$dir/on/err.txt")
  snaps=$(echo "$line" | awk '{print $2}')
  h_on=$(grep -o 'ergo overhead: [0-9.]* sec' "$dir/on/report.txt" | awk '{print $3}')
  h_off=$(grep -o 'ergo overhead: [0-9.]* sec' "$dir/off/report.txt" | awk '{print $3}')
  [ -n "$snaps" ] && [ -n "$h_on" ] && [ -n "$h_off" ] || {
    echo "FAIL: no dashboard or overhead line in the run's output"
    cat "$dir/on/err.txt"
    exit 1
  }
  offs+=("$(cat "$dir/off.s")") ons+=("$(cat "$dir/on.s")")
  pubs+=("$(echo "$line" | awk '{print $6}')") hooks+=("$h_on") hooks_off+=("$h_off")
  reads=$((reads + $(cat "$dir/reads" 2>/dev/null || echo 0)))
done
off_s=$(min "${offs[@]}") on_s=$(min "${ons[@]}") pub_s=$(min "${pubs[@]}")
hooks_s=$(min "${hooks[@]}") hooks_off_s=$(min "${hooks_off[@]}")
printf 'dashboard overhead: ergo-example-miniapp, %d steps of real work, online, estimate meter, least of %d runs each\n' "$steps" "$repeats"
printf 'run time: %.3f s without the dashboard, %.3f s with it (%+.2f%%, machine noise included)\n' \
  "$off_s" "$on_s" "$(echo "100 * ($on_s - $off_s) / $off_s" | bc -l)"
printf 'snapshots: %d published in %.6f s of the main thread (%.4f%% of the run); the client read %d in all\n' \
  "$snaps" "$pub_s" "$(echo "100 * $pub_s / $on_s" | bc -l)" "$reads"
printf "ergo's own time (hooks: meter readings, knob switches, tuning; plus publishing): %.6f s = %.4f%% of the run with the dashboard, %.6f s = %.4f%% without\n" \
  "$(echo "$hooks_s + $pub_s" | bc -l)" "$(echo "100 * ($hooks_s + $pub_s) / $on_s" | bc -l)" \
  "$hooks_off_s" "$(echo "100 * $hooks_off_s / $off_s" | bc -l)"
