# forward.cmake - ERGO_FORWARD: with the NVTX and ITT stand-ins (tests/forward/fake_*.c, which
# record each range push and pop in a file), every ergo push and pop arrives, in order; a missing
# library or a bad value gives one warning line and the run goes on; with ERGO_FORWARD unset no
# library is loaded (/proc/self/maps) and nothing is recorded.
add_library(ergo-test-fake-nvtx SHARED ${CMAKE_CURRENT_SOURCE_DIR}/forward/fake_nvtx.c)
set_target_properties(ergo-test-fake-nvtx PROPERTIES OUTPUT_NAME fake_nvtx)
add_library(ergo-test-fake-itt SHARED ${CMAKE_CURRENT_SOURCE_DIR}/forward/fake_itt.c)
set_target_properties(ergo-test-fake-itt PROPERTIES OUTPUT_NAME fake_itt)
add_executable(ergo-test-forward-order ${CMAKE_CURRENT_SOURCE_DIR}/forward/forward_order.c)
target_link_libraries(ergo-test-forward-order PRIVATE ergo)
set(ERGO_FORWARD_QUIET "ERGO_REPORT=none ERGO_REPORT_STEPS=none ERGO_BALANCE=none ERGO_ENERGY=none")

# The program prints the sequence it pushes; the stand-in's file must be the same, line by line.
foreach(tool nvtx itt)
  string(TOUPPER ${tool} TOOL)
  add_test(NAME forward_${tool}_order COMMAND ${ERGO_EXPECT} "--match=forward ${tool}: 36 lines in order\n" -- sh -c [=[
rec=$2.rec; rm -f "$rec"
env $3 ERGO_FORWARD=$1 ERGO_FORWARD_$4_LIB="$5" FAKE_$4_OUT="$rec" "$6" >"$2.want" 2>"$2.err" || { echo "FAIL: the run failed"; cat "$2.err"; exit 1; }
cat "$2.err"
if grep -q '^ergo: ' "$2.err"; then echo "FAIL: ergo printed lines"; exit 1; fi
[ -f "$rec" ] || { echo "FAIL: the $1 stand-in recorded nothing"; exit 1; }
diff "$2.want" "$rec" || { echo "FAIL: the $1 stand-in's sequence differs from the program's pushes and pops"; exit 1; }
echo "forward $1: $(wc -l <"$rec") lines in order"
]=] forward ${tool} ${CMAKE_CURRENT_BINARY_DIR}/forward_${tool} "${ERGO_FORWARD_QUIET}" ${TOOL}
    $<TARGET_FILE:ergo-test-fake-${tool}> $<TARGET_FILE:ergo-test-forward-order>)
endforeach()

# The timers example: every push has its pop and the nest closes (depth never below 0, 0 at the
# end); its regions arrive by name.
add_test(NAME forward_nvtx_timers COMMAND ${ERGO_EXPECT} "--match=forward timers: balanced\n" -- sh -c [=[
rec=$1.rec; rm -f "$rec"
env $2 ERGO_FORWARD=nvtx ERGO_FORWARD_NVTX_LIB="$3" FAKE_NVTX_OUT="$rec" "$4" >/dev/null 2>"$1.err" || { echo "FAIL: the run failed"; cat "$1.err"; exit 1; }
[ -f "$rec" ] || { echo "FAIL: nothing recorded"; exit 1; }
awk '/^push /{d++} /^pop$/{d--; if (d < 0) bad=1} END{exit (bad || d != 0)}' "$rec" || { echo "FAIL: pushes and pops do not nest"; exit 1; }
grep -q '^push HSML_COMPUTE$' "$rec" || { echo "FAIL: no push HSML_COMPUTE"; exit 1; }
echo "forward timers: balanced"
]=] forward_timers ${CMAKE_CURRENT_BINARY_DIR}/forward_timers "${ERGO_FORWARD_QUIET}"
    $<TARGET_FILE:ergo-test-fake-nvtx> $<TARGET_FILE:ergo-example-timers>)

# A missing library and a bad value: one warning line each, naming it and the fix; the run goes on.
add_test(NAME forward_missing COMMAND ${ERGO_EXPECT} "--match=forward missing: one line each\n" -- sh -c [=[
env $1 ERGO_FORWARD=nvtx ERGO_FORWARD_NVTX_LIB=/nonexistent/libnvToolsExt.so.1 "$2" >/dev/null 2>"$3.err" || { echo "FAIL: the run failed"; cat "$3.err"; exit 1; }
cat "$3.err"
[ "$(grep -c '^ergo: ' "$3.err")" -eq 1 ] || { echo "FAIL: expected one ergo line"; exit 1; }
grep -q "^ergo: warning: ERGO_FORWARD=nvtx: cannot load '/nonexistent/libnvToolsExt.so.1' .*(fix: .*ERGO_FORWARD_NVTX_LIB" "$3.err" || { echo "FAIL: the line does not name the library and the fix"; exit 1; }
env $1 ERGO_FORWARD=nvtz "$2" >/dev/null 2>"$3.err" || { echo "FAIL: the run failed"; cat "$3.err"; exit 1; }
cat "$3.err"
[ "$(grep -c '^ergo: ' "$3.err")" -eq 1 ] || { echo "FAIL: expected one ergo line"; exit 1; }
grep -q "^ergo: warning: ERGO_FORWARD='nvtz': 'nvtz' is not .*(fix: " "$3.err" || { echo "FAIL: the line does not name the value and the fix"; exit 1; }
echo "forward missing: one line each"
]=] forward_missing "${ERGO_FORWARD_QUIET}" $<TARGET_FILE:ergo-test-forward-order>
    ${CMAKE_CURRENT_BINARY_DIR}/forward_missing)

# ERGO_FORWARD unset (the library's path set all the same): nothing mapped, nothing recorded;
# set, the same check sees the stand-in mapped (so the check can fail).
add_test(NAME forward_unset_loads_nothing COMMAND ${ERGO_EXPECT} "--match=forward unset: nothing loaded\n" -- sh -c [=[
rec=$1.rec; rm -f "$rec"
out=$(env $2 ERGO_FORWARD_NVTX_LIB="$3" FAKE_NVTX_OUT="$rec" "$4" maps) || { echo "FAIL: the run failed"; exit 1; }
if echo "$out" | grep -q '^mapped:'; then echo "FAIL: a stand-in is mapped with ERGO_FORWARD unset"; exit 1; fi
[ ! -e "$rec" ] || { echo "FAIL: the stand-in recorded with ERGO_FORWARD unset"; exit 1; }
out=$(env $2 ERGO_FORWARD=nvtx ERGO_FORWARD_NVTX_LIB="$3" FAKE_NVTX_OUT="$rec" "$4" maps) || { echo "FAIL: the run failed"; exit 1; }
echo "$out" | grep -q '^mapped:.*fake_nvtx' || { echo "FAIL: the maps check does not see the stand-in when ERGO_FORWARD=nvtx"; exit 1; }
echo "forward unset: nothing loaded"
]=] forward_unset ${CMAKE_CURRENT_BINARY_DIR}/forward_unset "${ERGO_FORWARD_QUIET}"
    $<TARGET_FILE:ergo-test-fake-nvtx> $<TARGET_FILE:ergo-test-forward-order>)

# Both at once: each stand-in receives the whole sequence.
add_test(NAME forward_nvtx_itt COMMAND ${ERGO_EXPECT} "--match=forward nvtx,itt: both in order\n" -- sh -c [=[
rm -f "$1.nvtx" "$1.itt"
env $2 ERGO_FORWARD=nvtx,itt ERGO_FORWARD_NVTX_LIB="$3" ERGO_FORWARD_ITT_LIB="$4" FAKE_NVTX_OUT="$1.nvtx" FAKE_ITT_OUT="$1.itt" "$5" >"$1.want" 2>"$1.err" || { echo "FAIL: the run failed"; cat "$1.err"; exit 1; }
cat "$1.err"
diff "$1.want" "$1.nvtx" || { echo "FAIL: the NVTX stand-in's sequence differs"; exit 1; }
diff "$1.want" "$1.itt" || { echo "FAIL: the ITT stand-in's sequence differs"; exit 1; }
echo "forward nvtx,itt: both in order"
]=] forward_both ${CMAKE_CURRENT_BINARY_DIR}/forward_both "${ERGO_FORWARD_QUIET}"
    $<TARGET_FILE:ergo-test-fake-nvtx> $<TARGET_FILE:ergo-test-fake-itt>
    $<TARGET_FILE:ergo-test-forward-order>)
