# state.cmake - ctests of `ergo restore`, the real command: after kill -9 on test_state's fake
# CPU tree (test_state --fake-cpu runs the script in its mount namespace), and its usage errors.
set(ERGO_EXPECT_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/tools/expect.cmake)

if(TARGET test_state)
  add_test(NAME state_restore_kill9 COMMAND $<TARGET_FILE:test_state> --fake-cpu -- sh
    ${CMAKE_CURRENT_SOURCE_DIR}/tools/state_restore.sh $<TARGET_FILE:ergo-cli>
    $<TARGET_FILE:test_state>)
  set_tests_properties(state_restore_kill9 PROPERTIES SKIP_RETURN_CODE 77
    PASS_REGULAR_EXPRESSION "state_restore.sh: all checks passed\n"
    FAIL_REGULAR_EXPRESSION "FAIL:")
endif()

# Nothing to do is no failure.
add_test(NAME state_restore_nothing COMMAND ${CMAKE_COMMAND} -DRC=0
  "-DMATCH=^no state files in [^\n]*/state-empty: nothing to restore\n$"
  -P ${ERGO_EXPECT_SCRIPT} -- $<TARGET_FILE:ergo-cli> restore)
set_tests_properties(state_restore_nothing PROPERTIES
  ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/state-empty")

# Usage errors: one line, exit code 2, nothing read or written.
add_test(NAME state_restore_bad_option COMMAND ${CMAKE_COMMAND} -DRC=2
  "-DMATCH=^ergo restore: unknown option '--force': expected --pid N, --dry-run or --help\n$"
  -P ${ERGO_EXPECT_SCRIPT} -- $<TARGET_FILE:ergo-cli> restore --force)
add_test(NAME state_restore_bad_pid COMMAND ${CMAKE_COMMAND} -DRC=2
  "-DMATCH=^ergo restore: --pid '12x' is not a process id \\(a positive integer\\)\n$"
  -P ${ERGO_EXPECT_SCRIPT} -- $<TARGET_FILE:ergo-cli> restore --pid=12x)
add_test(NAME state_restore_no_pid COMMAND ${CMAKE_COMMAND} -DRC=2
  "-DMATCH=^ergo restore: --pid needs a process id\n$"
  -P ${ERGO_EXPECT_SCRIPT} -- $<TARGET_FILE:ergo-cli> restore --pid)
add_test(NAME state_restore_help COMMAND $<TARGET_FILE:ergo-cli> restore --help)
set_tests_properties(state_restore_help PROPERTIES PASS_REGULAR_EXPRESSION
  "^usage: ergo restore \\[--pid N\\] \\[--dry-run\\]\n")
