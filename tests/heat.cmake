# heat.cmake - ctests of the real OpenMP example: its report, its result for any thread count,
# its per-phase thread counts through ergo's threads knob, and its usage errors.
if(TARGET ergo-example-heat)
  set(heat_exe $<TARGET_FILE:ergo-example-heat>)
  set(heat_small --size 128 --steps 3)
  # The result of heat_small, bit-identical for every thread count (rows and C rows each
  # belong to one thread; the sums are serial; the example builds with -ffp-contract=off).
  set(heat_result "heat: result heat=619\\.63518365959897 residual=0\\.98243057663780564 product=-5\\.6504050997682738\n")
  # Step and balance files land here, not in the build tree's top; knob state too.
  set(heat_dir ${CMAKE_CURRENT_BINARY_DIR}/example_heat)
  file(MAKE_DIRECTORY ${heat_dir})
  set(heat_env "ERGO_STATE_DIR=${heat_dir}/state")

  # The report sorts siblings by time, which varies, so each line is looked for on its own;
  # the last line says all were found.
  add_test(NAME example_heat COMMAND ${ERGO_EXPECT}
    "--match=${heat_result}.*heat report: all 13 region lines found\n" -- sh -c [=[
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
n=0
for re in '^Total wall clock time for Global = [0-9.]+ sec$' '^\* Timestep +: [0-9.]+ sec, +[0-9.]+%' \
  '^\* Init +: ' '^- \* STENCIL +: ' '^- - \* JACOBI_SWEEP +: ' '^- \* COMPUTE +: ' \
  '^- - \* PACK +: ' '^- - \* DGEMM +: ' '^- \* SERIAL +: ' '^- - \* RESIDUAL +: ' \
  '^- - \* CHECKSUM +: ' '^- \* IO +: ' '^- - \* SUMMARY +: '; do
  printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: no report line matches $re"; exit 1; }
  n=$((n + 1))
done
echo "heat report: all $n region lines found"
]=] heat ${heat_exe} ${heat_small})
  set_tests_properties(example_heat PROPERTIES WORKING_DIRECTORY ${heat_dir}
    ENVIRONMENT "${heat_env};ERGO_REPORT=stdout" FAIL_REGULAR_EXPRESSION "FAIL:")

  # Where a meter exists the same report gains energy columns; the estimate meter exists
  # everywhere.  Init may come before Timestep (siblings are sorted by time).
  add_test(NAME example_heat_energy COMMAND ${ERGO_EXPECT}
    "--match=${heat_result}.*Total wall clock time for Global = [0-9.]+ sec\nTotal energy for Global = [0-9.]+ J [^\n]*\\[ESTIMATE\\]\n(\\* Init +: [^\n]*\n)?\\* Timestep +: [0-9.]+ sec, +[0-9.]+% \\| [0-9.]+ J, "
    -- ${heat_exe} ${heat_small})
  set_tests_properties(example_heat_energy PROPERTIES WORKING_DIRECTORY ${heat_dir}
    ENVIRONMENT "${heat_env};ERGO_REPORT=stdout;ERGO_ENERGY=estimate")

  # The threads knob for real: compute on 1 thread while the stencil keeps OMP_NUM_THREADS=2,
  # and the result does not change.
  add_test(NAME example_heat_threads COMMAND ${ERGO_EXPECT}
    "--match=OpenMP runs 2 threads in a parallel region [^\n]*\nheat: threads asked per phase: compute=1\nheat: threads used: stencil=2 compute=1\n${heat_result}"
    -- ${heat_exe} ${heat_small} --threads-per-phase compute=1)
  set_tests_properties(example_heat_threads PROPERTIES WORKING_DIRECTORY ${heat_dir}
    ENVIRONMENT "${heat_env};ERGO_REPORT=none;ERGO_ENERGY=none;OMP_NUM_THREADS=2"
    FAIL_REGULAR_EXPRESSION "inherited thread count")

  # One thread throughout: the same result again.
  add_test(NAME example_heat_one_thread COMMAND ${ERGO_EXPECT}
    "--match=OpenMP runs 1 thread in a parallel region [^\n]*\nheat: threads used: stencil=1 compute=1\n${heat_result}"
    -- ${heat_exe} ${heat_small})
  set_tests_properties(example_heat_one_thread PROPERTIES WORKING_DIRECTORY ${heat_dir}
    ENVIRONMENT "${heat_env};ERGO_REPORT=none;ERGO_ENERGY=none;OMP_NUM_THREADS=1")

  # Usage errors: one line naming the argument, the value and what is accepted; exit code 2.
  add_test(NAME example_heat_bad_args COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^heat: --size 'abc' is not accepted: expected an integer from 16 to 8192\n$"
    -- ${heat_exe} --size abc)
  add_test(NAME example_heat_bad_threads COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^heat: --threads-per-phase 'stencil=0' is not accepted: expected PHASE=T\\[,PHASE=T\\] with PHASE stencil or compute and T from 1 to [1-9][0-9]*\n$"
    -- ${heat_exe} --threads-per-phase=stencil=0)
  add_test(NAME example_heat_unknown_arg COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^heat: unknown argument '--szie': expected --size, --steps, --sweeps, --threads-per-phase, --output or --help\n$"
    -- ${heat_exe} --szie 64)
  add_test(NAME example_heat_missing_value COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^heat: --steps needs a value \\(--help lists them\\)\n$"
    -- ${heat_exe} --steps)
endif()
