# With ERGO_DISABLE the annotated example builds and runs without linking ergo.
add_executable(ergo-example-timers-disabled ${PROJECT_SOURCE_DIR}/examples/timers.c)
target_include_directories(ergo-example-timers-disabled PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(ergo-example-timers-disabled PRIVATE ERGO_DISABLE)
target_link_libraries(ergo-example-timers-disabled PRIVATE m)
add_test(NAME disabled_build COMMAND ${ERGO_EXPECT} -- $<TARGET_FILE:ergo-example-timers-disabled> 1)
# Nothing of ergo may run: no report on stdout.
set_tests_properties(disabled_build PROPERTIES FAIL_REGULAR_EXPRESSION "Total wall clock time")
