# save_every.cmake - a killed run keeps what it learnt and measured up to its last save (issue 13,
# item R5): ERGO_SAVE_EVERY seconds between saves of the tuning model (sweep, online) and the
# JSON report at ergo_step, both marked partial until ergo_finalize writes the complete ones.
# The sim mini-app runs a long calibration in the background and is killed (-9) once the file
# is on disk; the tests wait on the files, never on the clock.
if(TARGET ergo-example-miniapp)
  set(sav_app $<TARGET_FILE:ergo-example-miniapp>)
  set(sav_dir ${CMAKE_CURRENT_BINARY_DIR}/save_every)
  file(MAKE_DIRECTORY ${sav_dir})
  set(sav_env "ERGO_PLATFORM=sim;ERGO_REPORT=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;ERGO_STATE_DIR=${sav_dir}/state")
  # `killed FILE PATTERN`: the app (its environment set by the caller) runs a long calibration in
  # the background; once FILE holds PATTERN (at most 120 s of polling) it is killed with -9.
  # FAIL when FILE never holds it, or the run ended by itself.
  set(sav_lib [=[
killed() {
  "$app" --steps 1000000 >run.log 2>&1 &
  pid=$!
  i=0
  until grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 1200 ] || ! kill -0 $pid 2>/dev/null; then
      kill -9 $pid 2>/dev/null
      echo "FAIL: '$1' never held '$2' while the run went on" >&2
      exit 1
    fi
    sleep 0.1
  done
  kill -9 $pid
  wait $pid
  rc=$?
  [ $rc = 137 ] || { echo "FAIL: the run ended with $rc, not killed" >&2; exit 1; }
}
]=])

  # Sweep killed mid-calibration: the model on disk is valid JSON with regions, says it is
  # partial and how many steps it rests on, and the static policy applies it and says so.
  add_test(NAME save_every_model_killed COMMAND ${ERGO_EXPECT}
    "--json=format=ergo-model|version=1|policy=sweep|complete=OFF|steps"
    "--match=ergo: tuning model 'killed\\.json' is partial: it was saved at step [1-9][0-9]* of a sweep run that did not end[^\n]*\n"
    "--match=\nergo: model killed\\.json \\(partial\\) applied to [1-9][0-9]* of its [1-9][0-9]* regions?\n"
    -- sh -c "${sav_lib}
app=$1; rm -f killed.json
ERGO_POLICY=sweep ERGO_MODEL=killed.json ERGO_SAVE_EVERY=0.05 killed killed.json '\"pareto\"'
out=$(ERGO_POLICY=static ERGO_MODEL=killed.json \"$app\" --steps 2 2>&1) || { echo \"FAIL: static: $out\" >&2; exit 1; }
printf '%s\n' \"$out\" >&2
cat killed.json" sh ${sav_app})

  # Online killed mid-search, with a JSON report: the report on disk is valid, partial
  # (run.complete false), counts the steps so far and holds the region tree.
  add_test(NAME save_every_report_killed COMMAND ${ERGO_EXPECT}
    "--json=format=ergo-report|version=2|run/complete=OFF|run/policy=online|threads/0/tree/name=Global|threads/0/tree/children/0/name=Timestep"
    -- sh -c "${sav_lib}
app=$1; rm -f killed-report.json
ERGO_POLICY=online ERGO_MODEL=online-killed.json ERGO_REPORT_JSON=killed-report.json ERGO_SAVE_EVERY=0.05 killed killed-report.json '\"steps\": [1-9]'
cat killed-report.json" sh ${sav_app})

  # A run that ends normally leaves complete files, whatever was saved during it.
  add_test(NAME save_every_complete_model COMMAND ${ERGO_EXPECT}
    "--json=format=ergo-model|policy=sweep|complete=ON|steps=40"
    -- sh -c "rm -f done.json done-report.json
ERGO_POLICY=sweep ERGO_MODEL=done.json ERGO_REPORT_JSON=done-report.json ERGO_SAVE_EVERY=0.01 \"$1\" --steps 40 >&2 || exit 1
cat done.json" sh ${sav_app})
  add_test(NAME save_every_complete_report COMMAND ${ERGO_EXPECT}
    "--json=format=ergo-report|run/complete=ON|run/steps=40"
    -- sh -c "rm -f done2.json done2-report.json
ERGO_POLICY=sweep ERGO_MODEL=done2.json ERGO_REPORT_JSON=done2-report.json ERGO_SAVE_EVERY=0.01 \"$1\" --steps 40 >&2 || exit 1
cat done2-report.json" sh ${sav_app})

  # ERGO_SAVE_EVERY=0: nothing before finalize (the run is killed once its step file shows 300
  # steps, and neither file exists), then a normal run's model is complete.
  add_test(NAME save_every_zero COMMAND ${ERGO_EXPECT}
    "--json=format=ergo-model|complete=ON"
    -- sh -c "${sav_lib}
app=$1; rm -f zero.json zero-report.json zero-steps.txt
ERGO_POLICY=sweep ERGO_MODEL=zero.json ERGO_REPORT_JSON=zero-report.json ERGO_REPORT_STEPS=zero-steps.txt ERGO_SAVE_EVERY=0 killed zero-steps.txt '^Step 300$'
for f in zero.json zero-report.json; do [ ! -e \$f ] || { echo \"FAIL: \$f written before finalize with ERGO_SAVE_EVERY=0\" >&2; exit 1; }; done
ERGO_POLICY=sweep ERGO_MODEL=zero.json ERGO_SAVE_EVERY=0 \"$app\" --steps 3 >&2 || exit 1
cat zero.json" sh ${sav_app})

  # A bad value: one warning naming it, the range and the default; the run goes on.
  add_test(NAME save_every_bad_value COMMAND ${ERGO_EXPECT}
    "--match=^ergo: warning: ERGO_SAVE_EVERY='soon' is not valid: expected seconds between saves of the tuning model and the JSON report during the run, from 0 \\(only at ergo_finalize\\) to 86400; using 60\n"
    -- sh -c "out=$(ERGO_SAVE_EVERY=soon \"$1\" --steps 2 2>&1) || { echo \"FAIL: $out\"; exit 1; }
printf '%s\n' \"$out\" | grep 'warning:'
n=$(printf '%s\n' \"$out\" | grep -c 'warning:'); [ \"$n\" = 1 ] || { echo \"FAIL: $n warning lines, not 1\"; exit 1; }" sh ${sav_app})

  # MPI: saves during the run are rank 0's own tree; finalize replaces it with the merged,
  # complete report (2 ranks, saves every millisecond of a 30-step sweep).
  if(ERGO_WITH_MPI)
    add_test(NAME save_every_mpi_final_merged COMMAND ${ERGO_EXPECT}
      "--json=format=ergo-report|run/complete=ON|run/steps=30|mpi/ranks=2|mpi/merged=ON|mpi/rank=-1"
      -- sh -c "rm -f mpi.json mpi-model.json
\"$@\" >&2 || exit 1
cat mpi.json" sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --allow-run-as-root --oversubscribe
      ${MPIEXEC_PREFLAGS} ${sav_app} ${MPIEXEC_POSTFLAGS} --steps 30)
    set_tests_properties(save_every_mpi_final_merged PROPERTIES WORKING_DIRECTORY ${sav_dir}
      ENVIRONMENT "${sav_env};OMP_NUM_THREADS=1;ERGO_POLICY=sweep;ERGO_MODEL=mpi-model.json;ERGO_REPORT_JSON=mpi.json;ERGO_SAVE_EVERY=0.001;${ERGO_MPI_TEST_ENV}")
  endif()

  set_tests_properties(save_every_model_killed save_every_report_killed save_every_complete_model
    save_every_complete_report save_every_zero save_every_bad_value PROPERTIES
    WORKING_DIRECTORY ${sav_dir} ENVIRONMENT "${sav_env}")
endif()
