# The annotated example on the fake RAPL machine: per-region joules add up (1e-9 relative).
add_executable(ergo-check-energy ${CMAKE_CURRENT_SOURCE_DIR}/harness/check_energy.c)
target_link_libraries(ergo-check-energy PRIVATE PkgConfig::JANSSON m)
if(TARGET ergo-example-timers AND TARGET ergo-fakesys-run)
add_test(NAME example_energy_harness COMMAND ${ERGO_EXPECT}
  "--match=regions with measured children checked, 0 mismatches"
  -- sh ${CMAKE_CURRENT_SOURCE_DIR}/harness/example_energy.sh
    $<TARGET_FILE:ergo-fakesys-run> $<TARGET_FILE:ergo-example-timers>
    $<TARGET_FILE:ergo-check-energy> ${CMAKE_CURRENT_BINARY_DIR}/example_energy)
set_tests_properties(example_energy_harness PROPERTIES SKIP_RETURN_CODE 77)
endif()

# Counter wraps (issue 12): a 5 J counter at 100 W wraps every 50 ms, twice per default 100 ms
# sampler period.  With the default settings ergo shortens the sampler to range / max power / 2
# (5 J / 125 W TDP / 2 = 20 ms, one note line) and a 3.3 s region measures 330 J within 0.1 %
# across its 66 wraps (before: 40 J, "10 counter wraps corrected").
add_executable(ergo-steady-region ${CMAKE_CURRENT_SOURCE_DIR}/harness/steady_region.c)
target_link_libraries(ergo-steady-region PRIVATE ergo PkgConfig::JANSSON m)
if(TARGET ergo-fakesys-run)
add_test(NAME energy_wraps_default_sampler COMMAND ${ERGO_EXPECT}
  "--match=ergo: note: the energy sampler reads every 20 ms, not 100: the package-0 counter wraps after 5 J, every 0\\.04 s at 125 W \\(its maximum power\\)"
  "--match=steady: 3\\.[0-9]+ s at 100\\.000 W: expected [0-9.]+ J, measured [0-9.]+ J, error 0\\.0[0-9]+ %"
  "--match=sampler every 20 ms .*[0-9]+ counter wraps corrected"
  -- env -u ERGO_SAMPLE_MS ERGO_ENERGY=powercap ERGO_REPORT_JSON=${CMAKE_CURRENT_BINARY_DIR}/wraps_default.json
    ${ERGO_UNDER_RAPL} --range-uj=5000000 --tdp-w=125 --watts=100 --
    $<TARGET_FILE:ergo-steady-region> 3.3 100 ${CMAKE_CURRENT_BINARY_DIR}/wraps_default.json)
set_tests_properties(energy_wraps_default_sampler PROPERTIES SKIP_RETURN_CODE 77)
endif()
