# state.cmake - ctests of `ergo restore`, the real command: after kill -9 on test_state's fake
# CPU tree (test_state --fake-cpu runs the script in its mount namespace), and its usage errors.
if(TARGET test_state)
  add_test(NAME state_restore_kill9 COMMAND ${ERGO_EXPECT}
    "--match=state_restore.sh: all checks passed\n"
    -- $<TARGET_FILE:test_state> --fake-cpu -- sh
    ${CMAKE_CURRENT_SOURCE_DIR}/tools/state_restore.sh $<TARGET_FILE:ergo-cli>
    $<TARGET_FILE:test_state>)
  set_tests_properties(state_restore_kill9 PROPERTIES SKIP_RETURN_CODE 77
    FAIL_REGULAR_EXPRESSION "FAIL:")
endif()

# Nothing to do is no failure.
add_test(NAME state_restore_nothing COMMAND ${ERGO_EXPECT} --rc=0
  "--match=^no state files in [^\n]*/state-empty: nothing to restore\n$"
  -- $<TARGET_FILE:ergo-cli> restore)
set_tests_properties(state_restore_nothing PROPERTIES
  ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/state-empty")

# Usage errors: one line, exit code 2, nothing read or written.
add_test(NAME state_restore_bad_option COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo restore: unknown option '--force': expected --pid N, --dry-run or --help\n$"
  -- $<TARGET_FILE:ergo-cli> restore --force)
add_test(NAME state_restore_bad_pid COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo restore: --pid '12x' is not a process id \\(a positive integer\\)\n$"
  -- $<TARGET_FILE:ergo-cli> restore --pid=12x)
add_test(NAME state_restore_no_pid COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo restore: --pid needs a process id\n$"
  -- $<TARGET_FILE:ergo-cli> restore --pid)
add_test(NAME state_restore_help COMMAND ${ERGO_EXPECT}
  "--match=^usage: ergo restore \\[--pid N\\] \\[--dry-run\\]\n"
  -- $<TARGET_FILE:ergo-cli> restore --help)
