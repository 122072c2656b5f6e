# cxx.cmake - C++: ergo.hpp's scoped region (popped on every way out of its scope, exceptions
# too, keeping the caller's file and line), scoped setting and session give the same region tree
# as the C program of the same structure; ergo.h and ergo.hpp compile cleanly as C++ with g++
# and clang++ (-Wall -Wextra -pedantic).  The project is C: the C++ program is built by the test
# with the C++ compiler found here (SKIPPED without one).
add_executable(ergo-test-scoped-c cxx/scoped_c.c)
target_link_libraries(ergo-test-scoped-c PRIVATE ergo)
find_program(ERGO_TEST_CXX NAMES g++ c++ clang++)
find_program(ERGO_TEST_CLANGXX NAMES clang++)
set(cxx_flags -std=c++11 -Wall -Wextra -pedantic -Werror)
if(ERGO_SANITIZE)
  list(APPEND cxx_flags -fsanitize=${ERGO_SANITIZE})
endif()
add_test(NAME cxx_scoped_same_tree COMMAND ${ERGO_EXPECT}
  "--match=caught: step 2 fails here\n.*C\\+\\+ and C: the same tree of 5 regions\n$" -- sh -c [=[
cxx=$1 clangxx=$2 inc=$3 lib=$4 capp=$5 out=$6 src=$7 same=$8; shift 8
[ -n "$cxx" ] || { echo "SKIPPED: no C++ compiler (g++, c++ or clang++) here"; exit 77; }
"$cxx" "$@" -I"$inc" "$src" -o "$out" -L"$(dirname "$lib")" -lergo -Wl,-rpath,"$(dirname "$lib")" ||
  { echo "FAIL: $cxx cannot build $src"; exit 1; }
if [ -n "$clangxx" ]; then
  "$clangxx" -std=c++11 -Wall -Wextra -pedantic -Werror -I"$inc" -fsyntax-only "$src" ||
    { echo "FAIL: clang++ warns on ergo.hpp"; exit 1; }
fi
exec sh "$same" "C++" "$out" "$capp"
]=] cxx "${ERGO_TEST_CXX}" "${ERGO_TEST_CLANGXX}" ${PROJECT_SOURCE_DIR}/include $<TARGET_FILE:ergo>
  $<TARGET_FILE:ergo-test-scoped-c> ${CMAKE_CURRENT_BINARY_DIR}/ergo-test-scoped-cxx
  ${CMAKE_CURRENT_SOURCE_DIR}/cxx/scoped.cpp ${CMAKE_CURRENT_SOURCE_DIR}/support/same_tree.sh
  ${cxx_flags})
set_tests_properties(cxx_scoped_same_tree PROPERTIES SKIP_RETURN_CODE 77
  FAIL_REGULAR_EXPRESSION "FAIL:"
  ENVIRONMENT "ERGO_REPORT=stdout;ERGO_ENERGY=none;ERGO_KNOBS=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;${ERGO_MPI_TEST_ENV}")
