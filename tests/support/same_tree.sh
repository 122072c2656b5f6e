#!/bin/sh
# same_tree.sh LANG PROGRAM C_PROGRAM - run a binding's program and the C program of the same
# structure (their reports on stdout: ERGO_REPORT=stdout), and check that both succeed, the
# binding's says no "ergo: error", and their region trees (names and nesting, figures left out)
# are the same.  Unaccounted lines are left out of the comparison: the report prints one only
# where the children leave time uncovered, which on a fast machine can round to none in one run
# and not in the other.  Prints the binding's output, then "LANG and C: the same tree of N regions".
lang=$1 prog=$2 cprog=$3
tree() { grep -E '^(- )*\* ' | sed -E 's/ *:.*//' | grep -v ' Unaccounted$' | sort; }
a=$("$prog" 2>&1) || { printf '%s\n' "$a"; echo "FAIL: the $lang program failed"; exit 1; }
printf '%s\n' "$a"
b=$("$cprog" 2>&1) || { printf '%s\n' "$b"; echo "FAIL: the C program failed"; exit 1; }
printf '%s\n' "$a" | grep -q 'ergo: error' && { echo "FAIL: an error line from the $lang program"; exit 1; }
x=$(printf '%s\n' "$a" | tree) y=$(printf '%s\n' "$b" | tree)
[ "$x" = "$y" ] || { echo "FAIL: the trees differ:"; echo "$lang: $x"; echo "C: $y"; exit 1; }
echo "$lang and C: the same tree of $(printf '%s\n' "$x" | grep -c .) regions"
