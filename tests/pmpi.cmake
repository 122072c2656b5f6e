# pmpi.cmake - ctests of libergo-mpi-auto (mpi/pmpi.c): an MPI program that never calls
# ergo_init/ergo_finalize gets one merged report over its ranks, through the library linked in or
# LD_PRELOADed; ERGO_MPI_AUTO=0 turns it off, a bad value warns and keeps it on; a singleton run
# (no mpiexec) gets a normal report; MPI_Init_thread is covered too.
if(ERGO_WITH_MPI AND TARGET ergo_mpi_auto)
  set(pmpi_src ${CMAKE_CURRENT_SOURCE_DIR}/mpi/pmpi_app.c)
  # Linked with ergo-mpi-auto (before the MPI library: CMake puts it first).
  add_executable(ergo-test-pmpi-app ${pmpi_src})
  target_link_libraries(ergo-test-pmpi-app PRIVATE ergo_mpi_auto)
  # Linked with ergo and MPI only: the interceptor comes by LD_PRELOAD.
  add_executable(ergo-test-pmpi-app-ergo ${pmpi_src})
  target_link_libraries(ergo-test-pmpi-app-ergo PRIVATE ergo MPI::MPI_C)
  # No ergo at all (ERGO_DISABLE): an unmodified MPI binary, measured as a whole by LD_PRELOAD.
  add_executable(ergo-test-pmpi-app-plain ${pmpi_src})
  target_compile_definitions(ergo-test-pmpi-app-plain PRIVATE ERGO_DISABLE)
  target_include_directories(ergo-test-pmpi-app-plain PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(ergo-test-pmpi-app-plain PRIVATE MPI::MPI_C)

  set(pmpi_dir ${CMAKE_CURRENT_BINARY_DIR}/pmpi)
  file(MAKE_DIRECTORY ${pmpi_dir})
  set(pmpi_env "ERGO_STATE_DIR=${pmpi_dir}/state;ERGO_REPORT=stdout;ERGO_ENERGY=none"
    "ERGO_KNOBS=none;OMP_NUM_THREADS=1")
  list(APPEND pmpi_env ${ERGO_MPI_TEST_ENV})
  set(pmpi_mpiexec ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --allow-run-as-root
    --oversubscribe ${MPIEXEC_PREFLAGS})
  set(pmpi_preload env LD_PRELOAD=$<TARGET_FILE:ergo_mpi_auto>)

  # Every script: run "$@", show its output, fail on a non-zero exit; has N RE counts the
  # output lines that match RE and fails unless there are N.
  set(pmpi_head [=[
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
has() {
  c=$(printf '%s\n' "$out" | grep -Ec -- "$2")
  [ "$c" -eq "$1" ] || { echo "FAIL: $c line(s) match $2, expected $1"; exit 1; }
}
]=])
  # One merged report over 4 ranks: one Global total, the MPI-Tasks header, per-rank spread on
  # region lines, and the region only rank 3 ran.
  set(pmpi_merged [=[
has 1 '^Total wall clock time for Global = [0-9.]+ sec'
has 1 '^MPI-Tasks: 4, nodes: [0-9]+;'
has 1 '^(- )*\* WORK +: .* \| ranks min [0-9.]+ max [0-9.]+ std [0-9.]+ sec, imbalance +[0-9.]+%'
has 1 '^(- )*\* ONLY_RANK3 +: .* \| on 1/4 ranks'
echo "pmpi: one merged report"
]=])

  string(CONCAT pmpi_sh "${pmpi_head}" "${pmpi_merged}")
  set(pmpi_ok "pmpi_app: 4 ranks, MPI_Init, checksum 18\n.*pmpi: one merged report\n")
  add_test(NAME pmpi_auto COMMAND ${ERGO_EXPECT} "--match=${pmpi_ok}" -- sh -c "${pmpi_sh}" pmpi
    ${pmpi_mpiexec} $<TARGET_FILE:ergo-test-pmpi-app> ${MPIEXEC_POSTFLAGS})
  add_test(NAME pmpi_auto_init_thread COMMAND ${ERGO_EXPECT}
    "--match=pmpi_app: 4 ranks, MPI_Init_thread, checksum 18\n.*pmpi: one merged report\n"
    -- sh -c "${pmpi_sh}" pmpi
    ${pmpi_mpiexec} $<TARGET_FILE:ergo-test-pmpi-app> ${MPIEXEC_POSTFLAGS} --init-thread)
  # The same program linked with ergo but not ergo-mpi-auto, which comes by LD_PRELOAD (env runs
  # under mpiexec, so mpiexec itself does not load it).
  add_test(NAME pmpi_preload COMMAND ${ERGO_EXPECT} "--match=${pmpi_ok}" -- sh -c "${pmpi_sh}" pmpi
    ${pmpi_mpiexec} ${pmpi_preload} $<TARGET_FILE:ergo-test-pmpi-app-ergo> ${MPIEXEC_POSTFLAGS})

  # An MPI binary without ergo: the whole job's Global total and no regions.
  string(CONCAT pmpi_sh "${pmpi_head}" [=[
has 1 '^Total wall clock time for Global = [0-9.]+ sec'
has 1 '^MPI-Tasks: 4, nodes: [0-9]+;'
has 0 '^(- )*\* '
echo "pmpi: Global only"
]=])
  add_test(NAME pmpi_preload_plain COMMAND ${ERGO_EXPECT}
    "--match=pmpi_app: 4 ranks, MPI_Init_thread, checksum 18\n.*pmpi: Global only\n"
    -- sh -c "${pmpi_sh}" pmpi
    ${pmpi_mpiexec} ${pmpi_preload} $<TARGET_FILE:ergo-test-pmpi-app-plain> ${MPIEXEC_POSTFLAGS}
    --init-thread)

  # ERGO_MPI_AUTO=0: no ergo, the program runs (its regions warn that ergo is not initialised).
  string(CONCAT pmpi_sh "${pmpi_head}" [=[
has 0 '^Total wall clock time'
echo "pmpi: no report"
]=])
  add_test(NAME pmpi_auto_off COMMAND ${ERGO_EXPECT}
    "--match=pmpi_app: 4 ranks, MPI_Init, checksum 18\n.*pmpi: no report\n"
    -- sh -c "${pmpi_sh}" pmpi
    ${pmpi_mpiexec} $<TARGET_FILE:ergo-test-pmpi-app> ${MPIEXEC_POSTFLAGS})

  # A bad value: one line (from rank 0) naming the variable, the value and what is accepted;
  # the default (on) and one merged report.
  string(CONCAT pmpi_sh "${pmpi_head}" [=[
has 1 "^ergo: warning: ERGO_MPI_AUTO='maybe' is not valid: expected 0 \(off\) or 1 \(.*\); keeping 1$"
has 1 '^Total wall clock time for Global = [0-9.]+ sec'
echo "pmpi: warned once, still on"
]=])
  add_test(NAME pmpi_auto_bad_value COMMAND ${ERGO_EXPECT}
    "--match=pmpi_app: 4 ranks, MPI_Init, checksum 18\n.*pmpi: warned once, still on\n"
    -- sh -c "${pmpi_sh}" pmpi
    ${pmpi_mpiexec} $<TARGET_FILE:ergo-test-pmpi-app> ${MPIEXEC_POSTFLAGS})

  # No mpiexec: a singleton MPI job of one rank and its normal report.
  string(CONCAT pmpi_sh "${pmpi_head}" [=[
has 1 '^Total wall clock time for Global = [0-9.]+ sec'
has 1 '^(- )*\* WORK +: [0-9.]+ sec'
has 0 'ONLY_RANK3'
echo "pmpi: singleton report"
]=])
  add_test(NAME pmpi_singleton COMMAND ${ERGO_EXPECT}
    "--match=pmpi_app: 1 ranks, MPI_Init, checksum 0\n.*pmpi: singleton report\n"
    -- sh -c "${pmpi_sh}" pmpi
    $<TARGET_FILE:ergo-test-pmpi-app>)

  # A code that calls ergo_init itself under libergo-mpi-auto is told that the library started
  # ergo at MPI_Init and how to choose one, not to call ergo_finalize first.
  add_test(NAME pmpi_own_init COMMAND ${ERGO_EXPECT}
    "--match=libergo-mpi-auto already started ergo at MPI_Init.*ERGO_MPI_AUTO=0"
    "--match=pmpi_app: own ergo_init: "
    -- $<TARGET_FILE:ergo-test-pmpi-app> --own-init)
  set_tests_properties(pmpi_own_init PROPERTIES ENVIRONMENT "${pmpi_env}")

  # The library exports the three C bindings and nothing else; the linked program takes
  # MPI_Init and MPI_Finalize from it, and so does the preloaded plain one MPI_Init_thread,
  # rather than from the MPI library (where they are weak aliases of PMPI_*).
  add_test(NAME pmpi_exports COMMAND ${ERGO_EXPECT} "--match=pmpi: interposed\n" -- sh -c [=[
syms=$("$1" -D --defined-only "$2" | awk '$2 ~ /^[TW]$/ {print $3}' | sort | tr '\n' ' ')
echo "exported: $syms"
[ "$syms" = "MPI_Finalize MPI_Init MPI_Init_thread " ] || { echo "FAIL: exports"; exit 1; }
bound() { grep -E "symbol .MPI_(Init|Init_thread|Finalize).$" | grep -c "to .*libergo-mpi-auto"; }
n=$(LD_DEBUG=bindings "$3" 2>&1 >/dev/null | bound)
[ "$n" -eq 2 ] || { echo "FAIL: $n of MPI_Init, MPI_Finalize bound to ergo-mpi-auto"; exit 1; }
n=$(LD_DEBUG=bindings LD_PRELOAD="$2" "$4" --init-thread 2>&1 >/dev/null | bound)
[ "$n" -eq 2 ] || { echo "FAIL: $n of MPI_Init_thread, MPI_Finalize bound (preload)"; exit 1; }
echo "pmpi: interposed"
]=] pmpi ${CMAKE_NM} $<TARGET_FILE:ergo_mpi_auto> $<TARGET_FILE:ergo-test-pmpi-app>
    $<TARGET_FILE:ergo-test-pmpi-app-plain>)

  set(pmpi_tests pmpi_auto pmpi_auto_init_thread pmpi_preload pmpi_preload_plain pmpi_auto_off
    pmpi_auto_bad_value pmpi_singleton pmpi_exports)
  set_tests_properties(${pmpi_tests} PROPERTIES WORKING_DIRECTORY ${pmpi_dir} TIMEOUT 120
    ENVIRONMENT "${pmpi_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
  set_tests_properties(pmpi_auto_off PROPERTIES ENVIRONMENT "${pmpi_env};ERGO_MPI_AUTO=0")
  set_tests_properties(pmpi_auto_bad_value PROPERTIES ENVIRONMENT "${pmpi_env};ERGO_MPI_AUTO=maybe")
endif()
