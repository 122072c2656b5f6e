# bench_heap.cmake - ergo_init with ERGO_KNOBS=auto leaves the application's heap as it found it
# (issue 15, item 5): ergo-bench-heap --check runs its malloc-heavy step loop after ergo_init with
# the knobs open and with none, on the fake cpufreq/uncore machine (root; SKIPPED otherwise), and
# fails when the knobs make the loop move the heap top or fault pages more often (counts only).
if(ERGO_BUILD_BENCH AND TARGET ergo_fakesys)
  add_test(NAME bench_heap_undisturbed COMMAND ${ERGO_EXPECT}
    "--match=\nknobs_available=cpufreq uncore threads\n"
    "--match=\nheap_check=ok\n$"
    -- $<TARGET_FILE:ergo-bench-heap> --check)
  set_tests_properties(bench_heap_undisturbed PROPERTIES SKIP_RETURN_CODE 77)
endif()
