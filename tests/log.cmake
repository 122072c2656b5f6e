# log.cmake - the log path as a user meets it: 10000 mismatched pops print 5 error lines, one line
# saying the rest are counted, and one summary line at ergo_finalize; every error is counted.
add_executable(ergo-test-many-pops ${CMAKE_CURRENT_SOURCE_DIR}/tools/many_pops.c)
target_link_libraries(ergo-test-many-pops PRIVATE ergo_static)
add_test(NAME log_repeats COMMAND ${ERGO_EXPECT} "--match=log: 7 lines\n" -- sh -c [=[
out=$(ERGO_REPORT=none ERGO_REPORT_STEPS=none ERGO_BALANCE=none "$1" 10000 2>"$2") || { echo "FAIL: the run failed"; cat "$2"; exit 1; }
cat "$2"
[ "$out" = "errors: 10000" ] || { echo "FAIL: '$out', expected 'errors: 10000'"; exit 1; }
n=$(grep -c -E '^ergo: (error|warning): ' "$2")
[ "$n" -eq 7 ] || { echo "FAIL: $n error and warning lines on stderr, expected 7"; exit 1; }
m=$(grep -c 'ERGO_POP(1, "stpe"): label mismatch' "$2")
[ "$m" -eq 6 ] || { echo "FAIL: $m mismatch lines, expected 5 and the summary"; exit 1; }
grep -q '^ergo: warning: further lines like the one above are counted, not printed (summary at ergo_finalize)$' "$2" || { echo "FAIL: no line saying the rest are counted"; exit 1; }
grep -q '^ergo: error: 10000 lines like ".*" in all; 9995 not printed$' "$2" || { echo "FAIL: no summary line"; exit 1; }
echo "log: 7 lines"
]=] log_repeats $<TARGET_FILE:ergo-test-many-pops> ${CMAKE_CURRENT_BINARY_DIR}/log_repeats.err)
