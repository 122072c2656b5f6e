#!/bin/sh
# state_restore.sh - `ergo restore` as an administrator runs it after kill -9, on test_state's
# fake CPU tree (run under `test_state --fake-cpu --`, which sets ERGO_STATE_DIR).
#   state_restore.sh ERGO TEST_STATE
set -u
ergo=$1 victim=$2
cpu=/sys/devices/system/cpu
dir=$ERGO_STATE_DIR
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
# run NAME CMD...: CMD's output in $tmp/NAME, its exit status in $rc.
run() {
  name=$1
  shift
  "$@" >"$tmp/$name" 2>&1
  rc=$?
  printf '$ %s  (exit %d)\n' "$*" "$rc"
  cat "$tmp/$name"
}
expect() { # expect NAME LINE: $tmp/NAME holds exactly LINE
  printf '%s\n' "$2" | cmp -s - "$tmp/$1" || fail "$1: expected '$2'"
}

cp -a "$cpu" "$tmp/before"
mkfifo "$tmp/ready"
"$victim" --victim wait >"$tmp/ready" &
pid=$!
read -r word <"$tmp/ready"
[ "$word" = ready ] || fail "the victim said '$word', not ready"
diff -r "$tmp/before" "$cpu" >/dev/null && fail "the victim changed nothing"

# While it runs: --pid refuses, a plain run skips it.
run alive_pid "$ergo" restore --pid "$pid"
[ $rc = 1 ] || fail "--pid of a live process: exit $rc, expected 1"
expect alive_pid "ergo restore: process $pid is alive: it restores its own settings"
run alive_all "$ergo" restore
[ $rc = 0 ] || fail "a live process only: exit $rc, expected 0"
expect alive_all "process $pid is alive: it restores its own settings"

kill -9 "$pid"
wait "$pid" 2>/dev/null
[ -f "$dir/$pid.json" ] || fail "kill -9 left no state file $dir/$pid.json"
diff -r "$tmp/before" "$cpu" >/dev/null && fail "the tree is back without ergo restore"

# --dry-run: says every write, changes nothing.
run dry "$ergo" restore --dry-run --pid "$pid"
[ $rc = 0 ] || fail "--dry-run: exit $rc"
[ "$(grep -c "^would write '" "$tmp/dry")" = 8 ] || fail "--dry-run: expected 8 writes"
grep -qx "would write 'userspace' to $cpu/cpu0/cpufreq/scaling_governor" "$tmp/dry" ||
  fail "--dry-run does not show the governor"
diff -r "$tmp/before" "$cpu" >/dev/null && fail "--dry-run changed the tree"
[ -f "$dir/$pid.json" ] || fail "--dry-run removed the state file"

# The real thing: byte for byte as before, state file gone.
run restore "$ergo" restore
[ $rc = 0 ] || fail "restore: exit $rc"
[ "$(grep -c '^restored ' "$tmp/restore")" = 8 ] || fail "restore: expected 8 files restored"
diff -r "$tmp/before" "$cpu" || fail "the tree differs after ergo restore"
[ -e "$dir/$pid.json" ] && fail "ergo restore left $dir/$pid.json"

# A malformed state file: named, left in place, exit 1.
printf '{"format": "ergo-knob-state", "version": 1,' >"$dir/4194305.json"
run malformed "$ergo" restore
[ $rc = 1 ] || fail "malformed: exit $rc, expected 1"
grep -q "^ergo restore: $dir/4194305.json: not a usable ergo state file (.*); left in place\$" "$tmp/malformed" ||
  fail "malformed: not reported"
[ -f "$dir/4194305.json" ] || fail "the malformed state file was removed"
rm "$dir/4194305.json"

run nothing "$ergo" restore
[ $rc = 0 ] || fail "nothing to do: exit $rc"
expect nothing "no state files in $dir: nothing to restore"
echo "state_restore.sh: all checks passed"
