# ffi.cmake - the API as a program that cannot use ergo.h's macros sees it (Fortran's bind(C),
# ctypes, dlsym): ergo_step, a macro in C, must also be a function libergo.so exports.
add_executable(ergo-test-step-ffi ${CMAKE_CURRENT_SOURCE_DIR}/ffi/step_ffi.c)
# The shared library, not the static one the unit tests use (step_ffi.c includes no ergo.h).
target_link_libraries(ergo-test-step-ffi PRIVATE ergo ${CMAKE_DL_LIBS})
set(ffi_dir ${CMAKE_CURRENT_BINARY_DIR}/ffi)
file(MAKE_DIRECTORY ${ffi_dir})
add_test(NAME ffi_step_symbol COMMAND ergo-test-step-ffi $<TARGET_FILE:ergo> ${ffi_dir}/steps.txt)
set_tests_properties(ffi_step_symbol PROPERTIES
  ENVIRONMENT "ERGO_REPORT=none;ERGO_REPORT_STEPS=${ffi_dir}/steps.txt;ERGO_BALANCE=none;\
ERGO_ENERGY=none;ERGO_KNOBS=none;ERGO_STATE_DIR=${ffi_dir}/state;OMP_NUM_THREADS=1")
