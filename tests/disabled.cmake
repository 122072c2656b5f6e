# With ERGO_DISABLE the annotated example builds and runs without linking ergo.
add_executable(ergo-example-timers-disabled ${PROJECT_SOURCE_DIR}/examples/timers.c)
target_include_directories(ergo-example-timers-disabled PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(ergo-example-timers-disabled PRIVATE ERGO_DISABLE)
target_link_libraries(ergo-example-timers-disabled PRIVATE m)
add_test(NAME disabled_build COMMAND ${ERGO_EXPECT} -- $<TARGET_FILE:ergo-example-timers-disabled> 1)
# Nothing of ergo may run: no report on stdout.
set_tests_properties(disabled_build PROPERTIES FAIL_REGULAR_EXPRESSION "Total wall clock time")

# Each macro as a statement and as a value, with ERGO_DISABLE: no warning under -Werror, in C
# and, when there is a C++ compiler, in C++ (ergo.h is included from C++ codes too).
add_executable(ergo-test-disabled-statements disabled/statements.c)
target_include_directories(ergo-test-disabled-statements PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(ergo-test-disabled-statements PRIVATE ERGO_DISABLE)
target_compile_options(ergo-test-disabled-statements PRIVATE -Wall -Wextra -Werror)
add_test(NAME disabled_statements
  COMMAND ${ERGO_EXPECT} --match=disabled:.ok -- $<TARGET_FILE:ergo-test-disabled-statements>)
find_program(ERGO_TEST_CXX NAMES g++ c++ clang++)
if(ERGO_TEST_CXX)
  add_test(NAME disabled_statements_cxx
    COMMAND ${ERGO_EXPECT} -- ${ERGO_TEST_CXX} -std=c++11 -Wall -Wextra -Werror -DERGO_DISABLE
      -I${PROJECT_SOURCE_DIR}/include -x c++ ${CMAKE_CURRENT_SOURCE_DIR}/disabled/statements.c
      -o ${CMAKE_CURRENT_BINARY_DIR}/ergo-test-disabled-statements-cxx)
endif()
