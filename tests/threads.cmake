# test_threads runs real OpenMP parallel regions: it needs the compiler's OpenMP flags, not
# only libgomp at link time (which it gets through ergo_static).
if(TARGET test_threads)
  target_link_libraries(test_threads PRIVATE OpenMP::OpenMP_C)
endif()
if(TARGET test_settings)
  target_link_libraries(test_settings PRIVATE OpenMP::OpenMP_C)
endif()

# The threads knob's ceiling (issue 12, item 20): tests/apps/per_thread sizes its per-thread
# arrays from omp_get_max_threads() at start and aborts when a team outgrows them.  The online
# policy tunes only the threads knob, on the real machine with estimated energy, with regions
# long enough to be tuned.
add_executable(ergo-test-per-thread apps/per_thread.c)
target_link_libraries(ergo-test-per-thread PRIVATE ergo OpenMP::OpenMP_C)
set(ergo_per_thread_env ERGO_PLATFORM=real ERGO_ENERGY=estimate ERGO_POLICY=online
  ERGO_KNOBS=threads ERGO_MIN_REGION_MS=1 ERGO_REPORT=none ERGO_REPORT_STEPS=none
  ERGO_BALANCE=none ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/per-thread-state)
# Started with one thread: never more than one, whatever online tries.
add_test(NAME threads_ceiling_start COMMAND ${ERGO_EXPECT}
  "--match=arrays of 1, teams of 1 to 1\n"
  -- $<TARGET_FILE:ergo-test-per-thread> --steps 60)
set_tests_properties(threads_ceiling_start PROPERTIES ENVIRONMENT
  "${ergo_per_thread_env};OMP_NUM_THREADS=1;ERGO_MODEL=${CMAKE_CURRENT_BINARY_DIR}/per-thread-1.json")
# Started with two, ERGO_THREADS_MAX=1: the knob's only value is 1, so online has nothing to
# tune and says so; the code keeps its two threads.
add_test(NAME threads_ceiling_lowered COMMAND ${ERGO_EXPECT}
  "--match=no knob on this node has more than one value"
  "--match=arrays of 2, teams of 2 to 2\n"
  -- $<TARGET_FILE:ergo-test-per-thread> --steps 60)
set_tests_properties(threads_ceiling_lowered PROPERTIES ENVIRONMENT
  "${ergo_per_thread_env};OMP_NUM_THREADS=2;ERGO_THREADS_MAX=1;ERGO_MODEL=${CMAKE_CURRENT_BINARY_DIR}/per-thread-2.json")
# Started with one, ERGO_THREADS_MAX=2 raises the ceiling for a code that sizes its arrays
# otherwise (--size 2): online then tries two threads.
add_test(NAME threads_ceiling_raised COMMAND ${ERGO_EXPECT}
  "--match=arrays of 2, teams of 1 to 2\n"
  -- $<TARGET_FILE:ergo-test-per-thread> --steps 60 --size 2 --need-team 2)
set_tests_properties(threads_ceiling_raised PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT
  "${ergo_per_thread_env};OMP_NUM_THREADS=1;ERGO_THREADS_MAX=2;ERGO_MODEL=${CMAKE_CURRENT_BINARY_DIR}/per-thread-raised.json")
