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
