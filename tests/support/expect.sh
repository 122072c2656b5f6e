#!/bin/sh
# expect.sh - how every scripted ctest (tests/*.cmake) runs its command: the exit status is
# checked as well as the output, so no test passes on its output alone (PASS_REGULAR_EXPRESSION
# would make ctest ignore the status).
#
#   sh expect.sh CMAKE [--rc=N] [--match=RE]... [--json=CHECKS] -- CMD [ARGS...]
#
# CMAKE is ${CMAKE_COMMAND}: expect.cmake, beside this script, matches RE with CMake's regular
# expressions over the whole output, as PASS_REGULAR_EXPRESSION did ('.' matches a newline too,
# '^' and '$' are the start and end of the output).  The output (stdout and stderr as they came)
# is shown first; then
#   - the exit status must be N (default 0); a signal is a failure;
#   - status 77 with a line "SKIPPED: <why>" is a skip: this script exits 77 too, and the test's
#     SKIP_RETURN_CODE 77 makes ctest say Skipped; 77 without a reason is a failure;
#   - every RE must match the output;
#   - CHECKS ("path=value|path|...") are checked on stdout alone, parsed as JSON (expect.cmake
#     says how); stderr is then shown after stdout.
# A failure prints one "FAIL: ..." line and exits 1.
set -u
cmake=${1:?usage: expect.sh CMAKE [--rc=N] [--match=RE]... [--json=CHECKS] -- CMD [ARGS...]}
shift
rc_want=0 json= n=0
while [ $# -gt 0 ]; do
  case $1 in
  --rc=*) rc_want=${1#--rc=} ;;
  --match=*)
    n=$((n + 1))
    export "EXPECT_MATCH_$n=${1#--match=}"
    ;;
  --json=*) json=${1#--json=} ;;
  --)
    shift
    break
    ;;
  *)
    echo "FAIL: expect.sh: unknown option '$1': expected --rc=N, --match=RE, --json=CHECKS or --"
    exit 1
    ;;
  esac
  shift
done
case $rc_want in '' | *[!0-9]*)
  echo "FAIL: expect.sh: --rc='$rc_want' is not an exit status"
  exit 1
  ;;
esac
[ $# -gt 0 ] || {
  echo "FAIL: expect.sh: no command after --"
  exit 1
}

tmp=$(mktemp -d) || {
  echo "FAIL: expect.sh: cannot make a temporary directory"
  exit 1
}
trap 'rm -rf "$tmp"' EXIT
if [ -n "$json" ]; then
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  cat "$tmp/stdout" "$tmp/stderr" >"$tmp/out"
else
  "$@" >"$tmp/out" 2>&1
  rc=$?
fi
cat "$tmp/out"

if [ "$rc" -ne "$rc_want" ]; then
  if [ "$rc" -eq 77 ]; then
    why=$(grep -m 1 '^SKIPPED: .' "$tmp/out")
    if [ -n "$why" ]; then
      echo "expect.sh: exit code 77: skipped ($why)"
      exit 77
    fi
    echo "FAIL: exit code 77 (skip) without a line 'SKIPPED: <why>'"
    exit 1
  fi
  echo "FAIL: exit code $rc, expected $rc_want"
  exit 1
fi
[ "$n" -gt 0 ] || [ -n "$json" ] || exit 0
EXPECT_OUT=$tmp/out EXPECT_STDOUT=$tmp/stdout EXPECT_NMATCH=$n EXPECT_JSON=$json \
  "$cmake" -P "$(dirname "$0")/expect.cmake" || exit 1
