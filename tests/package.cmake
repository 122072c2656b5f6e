# package.cmake - ctest "package": install this build and use it from a separate project.
set(ERGO_PKGTEST_FLAGS "")
if(ERGO_SANITIZE)
  # A sanitized libergo needs the sanitizer runtime in the consumer too.
  set(ERGO_PKGTEST_FLAGS "-fsanitize=${ERGO_SANITIZE}")
endif()
add_test(NAME package
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/package/run.sh
    ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/package ${CMAKE_BINARY_DIR}/pkgtest
    ${CMAKE_COMMAND} ${CMAKE_C_COMPILER} "${ERGO_PKGTEST_FLAGS}"
    # The MPI consumers' launcher and compiler wrapper (none without MPI).
    "$<$<BOOL:${ERGO_WITH_MPI}>:${MPIEXEC_EXECUTABLE}>" "$<$<BOOL:${ERGO_WITH_MPI}>:${MPI_C_COMPILER}>")
set_tests_properties(package PROPERTIES TIMEOUT 300 ENVIRONMENT "${ERGO_MPI_TEST_ENV}")
