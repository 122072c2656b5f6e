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
  -- sh -c "mkdir -p -m 700 \"$ERGO_STATE_DIR\" && exec \"$0\" restore" $<TARGET_FILE:ergo-cli>)
set_tests_properties(state_restore_nothing PROPERTIES
  ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/state-empty")

# A state directory that does not exist held nothing (a process makes it before its first
# change): said in one line, exit 0, and it is not created, --dry-run or not (a mistyped
# ERGO_STATE_DIR once became a new directory).
foreach(how plain dry_run)
  set(dry "")
  if(how STREQUAL "dry_run")
    set(dry "--dry-run")
  endif()
  add_test(NAME state_restore_missing_dir_${how} COMMAND ${ERGO_EXPECT} --rc=0
    "--match=^ERGO_STATE_DIR=[^\n]*/state-missing-${how}/sub does not exist: no ergo process saved settings there, nothing to restore\n$"
    -- sh -c "rm -rf \"\${ERGO_STATE_DIR%/sub}\"; \"$0\" restore $1; rc=$?; [ ! -e \"\${ERGO_STATE_DIR%/sub}\" ] || echo \"FAIL: restore created it\"; exit $rc"
    $<TARGET_FILE:ergo-cli> "${dry}")
  set_tests_properties(state_restore_missing_dir_${how} PROPERTIES
    ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/state-missing-${how}/sub")
endforeach()
# A path that cannot be a directory is an error, on stderr with the command's name and the fix.
add_test(NAME state_restore_dir_is_file COMMAND ${ERGO_EXPECT} --rc=1
  "--match=^ergo restore: refusing ERGO_STATE_DIR=[^\n]*/state.cmake/sub as the state directory: cannot use [^\n]*/state.cmake/sub: Not a directory \\(fix: point it at a directory of this user's, mode 0700\\)\n$"
  -- $<TARGET_FILE:ergo-cli> restore --dry-run)
set_tests_properties(state_restore_dir_is_file PROPERTIES
  ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/state.cmake/sub")
add_test(NAME state_restore_dir_unsafe COMMAND ${ERGO_EXPECT} --rc=1
  "--match=^ergo restore: refusing ERGO_STATE_DIR=[^\n]*/state-open as the state directory: [^\n]*/state-open is writable by group or others \\(mode 777\\) \\(fix: point it at a directory of this user's, mode 0700\\)\n$"
  -- sh -c "mkdir -p \"$ERGO_STATE_DIR\" && chmod 777 \"$ERGO_STATE_DIR\" && \"$0\" restore 2>&1 >/dev/null"
  $<TARGET_FILE:ergo-cli>)
set_tests_properties(state_restore_dir_unsafe PROPERTIES
  ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/state-open")

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
add_test(NAME state_restore_pid_twice COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo restore: --pid given twice \\('3', then '4'\\): expected it once\n$"
  -- $<TARGET_FILE:ergo-cli> restore --pid 3 --pid=4)
add_test(NAME state_restore_help COMMAND ${ERGO_EXPECT}
  "--match=^usage: ergo restore \\[--pid N\\] \\[--dry-run\\]\n"
  -- $<TARGET_FILE:ergo-cli> restore --help)
