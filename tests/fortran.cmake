# fortran.cmake - the Fortran module: the example's tree (Fortran names, poppush, a setting
# pushed and popped, ergo_step) is the C program's of the same structure, with no error line.
if(TARGET ergo-example-fortran)
  add_test(NAME fortran_same_tree COMMAND ${ERGO_EXPECT}
    "--match=Fortran and C: the same tree of 5 regions\n$" --
    sh ${CMAKE_CURRENT_SOURCE_DIR}/support/same_tree.sh Fortran $<TARGET_FILE:ergo-example-fortran>
    $<TARGET_FILE:ergo-test-scoped-c>)
  set_tests_properties(fortran_same_tree PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "ERGO_REPORT=stdout;ERGO_ENERGY=none;ERGO_KNOBS=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;${ERGO_MPI_TEST_ENV}")
else()
  add_test(NAME fortran_same_tree COMMAND sh -c "echo 'SKIPPED: no Fortran compiler here (apt-get install gfortran)'; exit 77")
  set_tests_properties(fortran_same_tree PROPERTIES SKIP_RETURN_CODE 77)
endif()
