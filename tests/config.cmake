# config.cmake - ctests of the configuration spec as a user meets it: an unknown ERGO_* variable
# in a real program's environment is one warning line naming the nearest known variable.
if(TARGET ergo-example-miniapp)
  add_test(NAME config_unknown_variable COMMAND ${ERGO_EXPECT} "--match=config: one warning\n" -- sh -c [=[
err=$(ERGO_POLCY=online ERGO_REPORT=none ERGO_REPORT_STEPS=none ERGO_BALANCE=none "$1" --steps 1 2>&1 >/dev/null) || { echo "FAIL: the run failed: $err"; exit 1; }
printf '%s\n' "$err"
n=$(printf '%s\n' "$err" | grep -c 'warning')
[ "$n" -eq 1 ] || { echo "FAIL: $n warning lines, expected 1"; exit 1; }
printf '%s\n' "$err" | grep -qx 'ergo: warning: ERGO_POLCY: unknown variable; did you mean ERGO_POLICY?' || { echo "FAIL: not the line"; exit 1; }
echo "config: one warning"
]=] config $<TARGET_FILE:ergo-example-miniapp>)
endif()

# README's table of variables is the spec's list: a variable added to one only fails here.
add_executable(ergo-test-config-vars ${CMAKE_CURRENT_SOURCE_DIR}/tools/config_vars.c)
target_include_directories(ergo-test-config-vars PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(ergo-test-config-vars PRIVATE ergo_static)
add_test(NAME readme_variables COMMAND ${CMAKE_COMMAND} -DVARS=$<TARGET_FILE:ergo-test-config-vars>
  -DREADME=${PROJECT_SOURCE_DIR}/README.md -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/readme_variables.cmake)

# A bad ERGO_SIM_NODE file is a bad setting like any other: one warning naming the variable, the
# file's fault and the fix, and the run goes on on the built-in node (it stopped ergo_init, and
# every push said "call ergo_init() first").
if(TARGET ergo-example-miniapp)
  add_test(NAME config_bad_sim_node COMMAND ${ERGO_EXPECT}
    "--match=ergo: warning: ERGO_SIM_NODE='[^']*bad_node.json' is not valid: sim node file '[^']*': cores = -5 is not valid: expected an integer from 1 to 256; keeping the built-in node\n"
    "--match=Total energy for Global = [0-9.]+ J"
    -- sh -c [=[
printf '{"cores": -5}\n' > "$2"
ERGO_SIM_NODE="$2" ERGO_PLATFORM=sim ERGO_REPORT=stdout ERGO_REPORT_STEPS=none ERGO_BALANCE=none "$1" --steps 1 2>&1
]=] config $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/bad_node.json)
endif()
