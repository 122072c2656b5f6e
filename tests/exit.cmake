# exit.cmake - a program that ends without ergo_finalize (exit(), a return from main, a Fortran
# STOP) keeps its reports: ergo finalizes at exit as ergo_finalize would, says so in one warning
# line, and keeps the program's exit status; the knobs are back as found; a forked child that
# exits writes nothing of its parent's; an ergo_finalize before exit leaves the exit nothing to do.
add_executable(ergo-test-exit-early apps/exit_early.c)
target_link_libraries(ergo-test-exit-early PRIVATE ergo Threads::Threads)
set(exit_app $<TARGET_FILE:ergo-test-exit-early>)
set(exit_dir ${CMAKE_CURRENT_BINARY_DIR}/exit_early)
file(MAKE_DIRECTORY ${exit_dir})
set(exit_env "ERGO_PLATFORM=sim;ERGO_STATE_DIR=${exit_dir}/state;ERGO_REPORT=rep.txt;ERGO_REPORT_JSON=r.json;ERGO_REPORT_HATCHET=h.json;ERGO_REPORT_CSV=r.csv;ERGO_REPORT_STEPS=steps.txt;ERGO_BALANCE=bal.txt;ERGO_POLICY=online;ERGO_MIN_REGION_MS=1;OMP_NUM_THREADS=1")
# The at-exit line, and every report and the model complete: `run MODE STATUS [ARGS...]` runs
# the app in a fresh directory of that name (ARGS go to the app); `said N RE` checks that N lines
# of its output match RE; `complete REGION` checks the files, with REGION (open at the end) in
# every report.
set(exit_lib [=[
top=$PWD
fail() { echo "FAIL: $*"; exit 1; }
run() {
  mode=$1 want=$2; shift 2
  cd "$top" && rm -rf "$mode" && mkdir "$mode" && cd "$mode" || fail "no directory $mode"
  out=$("$app" "$mode" "$@" 2>&1); rc=$?
  printf '%s\n' "$out"
  [ "$rc" = "$want" ] || fail "$mode: exit status $rc, expected $want"
}
said() {
  n=$(printf '%s\n' "$out" | grep -Ec -- "$2")
  [ "$n" = "$1" ] || fail "$n lines match '$2', expected $1"
}
complete() {
  for f in rep.txt r.json h.json r.csv; do [ -s $f ] || fail "no $f"; done
  tail -n 1 rep.txt | grep -q '^Run: ' || fail "rep.txt does not end with its Run: line"
  grep -q "$1" rep.txt || fail "rep.txt lacks the open region $1"
  grep -q '"complete": true' r.json || fail "r.json is not the final report"
  grep -q "\"$1\"" r.json || fail "r.json lacks the open region $1"
  grep -q "$1" h.json || fail "h.json lacks the open region $1"
  grep -q "$1" r.csv || fail "r.csv lacks the open region $1"
  # A run that tuned no region (the Fortran program's regions take no time on the sim node) writes
  # no model, and says so at exit as at ergo_finalize.
  if printf '%s\n' "$out" | grep -q "no tuning model written to 'm.json'"; then
    [ ! -e m.json ] || fail "m.json written by a run that tuned no region"
  else
    grep -q '"format": "ergo-model"' m.json || fail "m.json is not a tuning model"
    grep -q '"complete": true' m.json || fail "m.json is not the final model"
  fi
  ls "$state"/*.json 2>/dev/null && fail "a knob state file is left"
  echo "complete"
}
]=])
set(exit_said "ergo: warning: the program is ending without ergo_finalize \\(exit\\(\\), a return from main or a Fortran STOP\\): ergo finalizes at exit and writes its reports as ergo_finalize would \\(fix: call ergo_finalize before the program ends\; after an error, nothing: the reports are complete\\)\n")
set(exit_open "ergo: error: ergo_finalize: region \"inner\" pushed at [^\n]*exit_early\\.c:[0-9]+ \\(level 2\\) is still open\; closing it now \\(fix: add the matching ERGO_POP before ergo_finalize\\)\nergo: error: ergo_finalize: region \"Timestep\" pushed at [^\n]*exit_early\\.c:[0-9]+ \\(level 1\\) is still open\; closing it now")
function(exit_test name script)
  add_test(NAME exit_early_${name} COMMAND ${ERGO_EXPECT} ${ARGN} "--match=\ncomplete\n$"
    -- sh -c "${exit_lib}
app=$1 state=$2; ${script}" sh ${exit_app} ${exit_dir}/state)
  set_tests_properties(exit_early_${name} PROPERTIES WORKING_DIRECTORY ${exit_dir} TIMEOUT 60
    ENVIRONMENT "${exit_env};ERGO_MODEL=m.json")
endfunction()

# exit() and a return from main inside two regions: the line, the regions closed with their
# error lines, every report and the model written and named, the program's exit status kept.
foreach(mode_status exit:3 return:4)
  string(REPLACE ":" ";" ms ${mode_status})
  list(GET ms 0 mode)
  list(GET ms 1 status)
  exit_test(${mode} "run ${mode} ${status}; said 1 'ending without ergo_finalize'
for f in steps.txt bal.txt; do [ -s \$f ] || fail \"no \$f\"; done; complete inner"
    "--match=ending by ${mode}\n"
    "--match=${exit_said}${exit_open}"
    "--match=ergo: tuning model written to m\\.json"
    "--match=ergo: JSON report in r\\.json\nergo: Hatchet JSON in h\\.json\nergo: CSV report in r\\.csv\nergo: text report in rep\\.txt\n")
endforeach()

# Once per ergo session: an exit after ergo_finalize does nothing more (one set of reports, no
# line), and a second ergo_init is finalized at exit like the first.
exit_test(again "run finalize 5; said 0 'ending without'; said 1 'JSON report in r[.]json'
run again 5; said 1 'ending without'; said 2 'JSON report in r[.]json'; complete again"
  "--match=\nergo_finalize: 0\n.*\nergo_init again: 0\n")

# A forked child that exits writes nothing of its parent's and says nothing; the parent's exit
# then writes every report.
exit_test(fork "run fork 3; said 1 'child: exit 0, wrote no report'; said 1 'ending without'
complete inner")

# A thread still pushing and popping when main calls exit(): the exit waits for it to leave the
# region call it is in, then finalizes; nothing hangs.
exit_test(thread "run thread 3; said 1 'ending without'; complete inner")

# ERGO_ON_ERROR=abort: the open regions' error lines do not abort at exit, which would replace
# the program's exit status and lose the reports.
exit_test(on_error_abort "ERGO_ON_ERROR=abort run exit 3; said 0 'aborting'; said 2 'is still open'
complete inner")

# A Fortran program that ends in STOP or ERROR STOP inside its regions.
if(TARGET ergo_fortran)
  add_executable(ergo-test-exit-stop apps/exit_stop.f90)
  target_link_libraries(ergo-test-exit-stop PRIVATE ergo_fortran)
  foreach(mode_status stop:0 error:2)
    string(REPLACE ":" ";" ms ${mode_status})
    list(GET ms 0 mode)
    list(GET ms 1 status)
    add_test(NAME exit_fortran_${mode} COMMAND ${ERGO_EXPECT}
      "--match=${exit_said}ergo: error: ergo_finalize: region \"converge\" pushed at fortran:0 \\(level 2\\) is still open\; closing it now \\(fix: add the matching ERGO_POP before ergo_finalize\\)\nergo: error: ergo_finalize: region \"Timestep\" pushed at fortran:0 \\(level 1\\) is still open"
      "--match=\ncomplete\n$"
      -- sh -c "${exit_lib}
app=$1 state=$2; run ${mode} ${status}; said 1 'ending without ergo_finalize'; complete converge"
      sh $<TARGET_FILE:ergo-test-exit-stop> ${exit_dir}/state)
    set_tests_properties(exit_fortran_${mode} PROPERTIES WORKING_DIRECTORY ${exit_dir}
      TIMEOUT 60 ENVIRONMENT "${exit_env};ERGO_MODEL=m.json")
  endforeach()
else()
  add_test(NAME exit_fortran_stop COMMAND sh -c "echo 'SKIPPED: no Fortran compiler here (apt-get install gfortran)'; exit 77")
  set_tests_properties(exit_fortran_stop PROPERTIES SKIP_RETURN_CODE 77)
endif()
