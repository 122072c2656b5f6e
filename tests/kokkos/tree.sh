#!/bin/sh
# tree.sh CMD [ARGS...] - run CMD (its text report on stdout), show its output, fail on a non-zero
# exit, then print one line "tree: PATH;PATH;..." of the report's regions as paths below Global
# ("Timestep/FORCES/drift"), sorted, Unaccounted left out: the tree whatever the times' order.
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
printf 'tree: %s\n' "$(printf '%s\n' "$out" | awk '
  /^Sections$/ { exit }
  /^(- )*\* / {
    line = $0; d = 0
    while (substr(line, 1, 2) == "- ") { d++; line = substr(line, 3) }
    line = substr(line, 3); sub(/ +: .*/, "", line)
    if (line == "Unaccounted") next
    p[d] = line; path = p[0]
    for (i = 1; i <= d; i++) path = path "/" p[i]
    print path
  }' | LC_ALL=C sort | tr '\n' ';')"
