# fortran.cmake - the Fortran module: the example's tree (Fortran names, poppush, a setting
# pushed and popped, ergo_step) is the C program's of the same structure, with no error line.
if(TARGET ergo-example-fortran)
  add_test(NAME fortran_same_tree COMMAND ${ERGO_EXPECT}
    "--match=Fortran and C: the same tree of 5 regions\n$" -- sh -c [=[
f=$1 c=$2
tree() { grep -E '^(- )*\* ' | sed -E 's/ *:.*//' | sort; }
a=$("$f" 2>&1) || { printf '%s\n' "$a"; echo "FAIL: the Fortran example failed"; exit 1; }
printf '%s\n' "$a"
b=$("$c" 2>&1) || { printf '%s\n' "$b"; echo "FAIL: the C program failed"; exit 1; }
printf '%s\n' "$a" | grep -q 'ergo: error' && { echo "FAIL: an error line from the Fortran example"; exit 1; }
x=$(printf '%s\n' "$a" | tree) y=$(printf '%s\n' "$b" | tree)
[ "$x" = "$y" ] || { echo "FAIL: the trees differ:"; echo "Fortran: $x"; echo "C: $y"; exit 1; }
echo "Fortran and C: the same tree of $(printf '%s\n' "$x" | grep -cv Unaccounted) regions"
]=] fortran $<TARGET_FILE:ergo-example-fortran> $<TARGET_FILE:ergo-test-scoped-c>)
  set_tests_properties(fortran_same_tree PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "ERGO_REPORT=stdout;ERGO_ENERGY=none;ERGO_KNOBS=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;${ERGO_MPI_TEST_ENV}")
else()
  add_test(NAME fortran_same_tree COMMAND sh -c "echo 'SKIPPED: no Fortran compiler here (apt-get install gfortran)'; exit 77")
  set_tests_properties(fortran_same_tree PROPERTIES SKIP_RETURN_CODE 77)
endif()
