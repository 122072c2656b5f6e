# tuning_say.cmake - tuning that does nothing says so, in one warning line with the fix (issue 12,
# item 13), and a tuning run says how long it takes, how far it is and what it chose (item 15):
# tests/apps/tune_cases on the sim node (and, for the missing meter, on this machine).
add_executable(ergo-test-tune-cases apps/tune_cases.c)
target_link_libraries(ergo-test-tune-cases PRIVATE ergo)
set(say_app $<TARGET_FILE:ergo-test-tune-cases>)
set(say_dir ${CMAKE_CURRENT_BINARY_DIR}/tuning_say)
file(MAKE_DIRECTORY ${say_dir})
set(say_env "ERGO_PLATFORM=sim;ERGO_REPORT=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;ERGO_STATE_DIR=${say_dir}/state")
# Every script runs the app with its arguments as `run NAME ARGS...` (output in $out, FAIL: on a
# non-zero exit) and `one_warning` checks that exactly one warning line was printed.
set(say_lib [=[
run() { name=$1; shift; out=$("$app" "$@" 2>&1) || { echo "FAIL: $name exited $?: $out"; exit 1; }; printf '%s\n' "$out"; }
one_warning() { n=$(printf '%s\n' "$out" | grep -c 'warning:'); [ "$n" = 1 ] || { echo "FAIL: $n warning lines, not 1"; exit 1; }; }
one_work() { n=$(printf '%s\n' "$out" | grep -c 'warning: ERGO_WORK'); [ "$n" = 1 ] || { echo "FAIL: $n ERGO_WORK warnings, not 1"; exit 1; }; }
]=])

# A model of another program: static names its first region and this program's, and the fix.
add_test(NAME tuning_say_foreign_model COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: tuning model 'a\\.json' names none of this program's regions \\(its first: 'Global/a_solve'; this program's: 'Global/b_solve'\\): it was made for another program, and nothing was tuned \\(fix: make a model of this program with ERGO_POLICY=online or sweep, ERGO_MODEL=a\\.json\\)\nergo: model a\\.json applied to 0 of its 1 region\n"
  -- sh -c "${say_lib}
app=$1; rm -f a.json
ERGO_POLICY=online ERGO_MODEL=a.json run online --names a --steps 3 >/dev/null
ERGO_POLICY=static ERGO_MODEL=a.json run static --names b --steps 2
one_warning" sh ${say_app})

# A significant region the model has no entry for: named, and the regions it did tune summed up.
add_test(NAME tuning_say_missing_entry COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: tuning model 'm\\.json' has no entry for 1 significant region of this program \\(first: 'Global/phase_extra'\\), which ran untuned \\(fix: make the model again on this version of the program with ERGO_POLICY=online or sweep\\)\n"
  "--match=ergo: tuning summary \\(online, energy@5%\\): 1 region, expected per execution against the untuned baseline:\nergo:   region +setting +energy saved +time\nergo:   Global/phase_solve +cpu=[0-9]+,uncore=[0-9]+,threads=[0-9]+ +-?[0-9]+\\.[0-9]% +[-+][0-9]+\\.[0-9]%\nergo: model m\\.json applied to 1 of its 1 region\n"
  -- sh -c "${say_lib}
app=$1; rm -f m.json
ERGO_POLICY=online ERGO_MODEL=m.json run online --steps 3 >/dev/null
ERGO_POLICY=static ERGO_MODEL=m.json run static --extra --steps 2
one_warning" sh ${say_app})

# No region long enough, under online and sweep: the longest is named with a threshold that
# would tune it, and nothing says "run more steps"; no model is written, so the file there (a
# good model of an earlier run) is kept, during the run (ERGO_SAVE_EVERY) as at its end.  Before,
# a model with no regions replaced it.
foreach(policy online sweep)
  add_test(NAME tuning_say_no_significant_${policy} COMMAND ${ERGO_EXPECT}
    "--match=ergo: warning: ERGO_POLICY=${policy}: no region took ERGO_MIN_REGION_MS=100 ms or more per execution \\(the longest, 'Global/phase_solve', [0-9]\\.[0-9]+ ms\\), so nothing was tuned and no model is written \\(fix: ERGO_MIN_REGION_MS=[0-9], or time a longer part of the code as one region\\)\nergo: ${policy}: no tuning model written, as no region was tuned: '${policy}-empty\\.json' kept as it was\n"
    -- sh -c "${say_lib}
app=$1; echo precious >${policy}-empty.json
ERGO_SAVE_EVERY=0.001 ERGO_POLICY=${policy} ERGO_MODEL=${policy}-empty.json run ${policy} --ms 5 --steps 4
one_warning
[ \"$(cat ${policy}-empty.json)\" = precious ] || { echo 'FAIL: the model there was replaced'; exit 1; }
case \$out in *'more steps'*) echo 'FAIL: blamed the steps'; exit 1;; esac" sh ${say_app})
endforeach()

# No region measured at all (the app's regions are at level 1, ERGO_ENERGY_LEVEL=0): said so,
# with the fixes.
add_test(NAME tuning_say_no_region COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: ERGO_POLICY=online: the program entered no region below Global at a level up to ERGO_ENERGY_LEVEL=0 \\(deeper ones are not measured\\), so nothing was tuned and no model is written \\(fix: annotate the main phases of each step with ergo_push/ergo_pop, or raise ERGO_ENERGY_LEVEL\\)\nergo: online: no tuning model written to 'level0\\.json', as no region was tuned\n"
  -- sh -c "${say_lib}
app=$1; rm -f level0.json
ERGO_ENERGY_LEVEL=0 ERGO_POLICY=online ERGO_MODEL=level0.json run online --steps 3
one_warning
[ ! -e level0.json ] || { echo 'FAIL: a model was written'; exit 1; }" sh ${say_app})

# A region that runs once under online: named, with the tool that can tune it; the region that
# runs every step converges and is summed up.
add_test(NAME tuning_say_once COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: ERGO_POLICY=online: 1 of 2 significant regions ran only once \\(first: 'Global/phase_init'\\); online learns from a region's repeated executions, so it was not tuned and more steps cannot help \\(fix: `ergo sweep --runs -- APP` tunes such regions with one run per setting\\)\n"
  "--match=\nergo:   Global/phase_solve +cpu="
  -- sh -c "${say_lib}
app=$1; rm -f once.json
ERGO_POLICY=online ERGO_MODEL=once.json run online --once 300 --steps 45
one_warning" sh ${say_app})

# No energy meter (this machine, ERGO_ENERGY=none) with an energy objective: said at start,
# naming the meter as the cause, not the number of steps; the run goes on as monitor (its report
# says so) and writes no model, so the model already there is kept, and no line announces a
# search first.  Before, the run announced a search, said "policy online" and replaced the model
# with an empty one.  Needs a knob with two values: the threads knob with two threads.
add_test(NAME tuning_say_no_meter COMMAND ${ERGO_EXPECT}
  "--match=^ergo: warning: ERGO_POLICY=online: no energy meter reads here \\(ERGO_ENERGY=none; `ergo info` says why\\), and ERGO_OBJECTIVE=energy weighs energy, so nothing can be tuned \\(fix: ERGO_ENERGY=estimate for energy from CPU time, ERGO_OBJECTIVE=time to tune on time alone, or run where a meter works\\); running as monitor \\(changes nothing, and writes no tuning model: 'nometer\\.json' kept as it was\\)\n"
  -- sh -c "${say_lib}
app=$1; echo precious >nometer.json; rm -f nometer-report.json
ERGO_REPORT_JSON=nometer-report.json run online --ms 3 --steps 4 >/dev/null
case \$out in *'nothing to tune'*) echo \"SKIPPED: no knob has two values here: \$out\"; exit 77;; esac
printf '%s\n' \"\$out\"
one_warning
case \$out in *'more steps)'*) echo 'FAIL: blamed the steps'; exit 1;; esac
case \$out in *'searches for its setting'*) echo 'FAIL: announced a search'; exit 1;; esac
[ \"$(cat nometer.json)\" = precious ] || { echo 'FAIL: the model there was replaced'; exit 1; }
grep -q '\"policy\": \"monitor\"' nometer-report.json || { echo 'FAIL: the report does not say monitor'; exit 1; }" sh ${say_app})
set_tests_properties(tuning_say_no_meter PROPERTIES SKIP_RETURN_CODE 77)

# The same on the sim node with ERGO_ENERGY=none (no meter there either), under sweep and online:
# no model file is made where none was.
foreach(pol sweep online)
  add_test(NAME tuning_say_no_meter_sim_${pol} COMMAND ${ERGO_EXPECT}
    "--match=^ergo: warning: ERGO_POLICY=${pol}: no energy meter reads here \\(ERGO_ENERGY=none; [^\n]*\\); running as monitor \\(changes nothing\\)\ntune_cases: 45 steps done\n$"
    -- sh -c "${say_lib}
app=$1; rm -f nometer-${pol}.json
ERGO_ENERGY=none ERGO_POLICY=${pol} ERGO_MODEL=nometer-${pol}.json run ${pol} --steps 45
one_warning
[ ! -e nometer-${pol}.json ] || { echo 'FAIL: a model was written'; exit 1; }" sh ${say_app})
  set_tests_properties(tuning_say_no_meter_sim_${pol} PROPERTIES WORKING_DIRECTORY ${say_dir}
    ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0" FAIL_REGULAR_EXPRESSION "FAIL:")
endforeach()

# The sweep says the steps it needs before it starts, a progress line at every step
# (ERGO_TUNE_PROGRESS=step), and at the end what it chose and where the model went.
add_test(NAME tuning_say_sweep_progress COMMAND ${ERGO_EXPECT}
  "--match=^ergo: sweep: each significant region is measured for up to 12 executions, then runs at its best: up to 13 steps for a region run once per step \\(ERGO_SWEEP=budget=N shortens the schedule, N >= 10\\)\n"
  "--match=\nergo: sweep: step 2: 0 of 1 region done, 11 executions left at most, about 11 steps to go\nergo: sweep: step 3: 0 of 1 region done, 10 executions left at most, about 10 steps to go\n"
  "--match=\nergo: sweep: step 13: 1 of 1 region done, 0 executions left at most\n"
  "--match=\nergo: tuning summary \\(sweep, energy@5%\\): 1 region, expected per execution against the untuned baseline:\nergo:   region +setting +energy saved +time\nergo:   Global/phase_solve +cpu=[0-9]+,uncore=[0-9]+,threads=[0-9]+ +-?[0-9]+\\.[0-9]% +[-+][0-9]+\\.[0-9]%\nergo: tuning model written to progress\\.json\n"
  -- sh -c "${say_lib}
app=$1; rm -f progress.json
ERGO_POLICY=sweep ERGO_MODEL=progress.json ERGO_SWEEP=budget=12 ERGO_TUNE_PROGRESS=step run sweep --steps 16
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})

# online: the same start line and progress; ERGO_TUNE_PROGRESS=0 turns the lines off.
add_test(NAME tuning_say_online_progress COMMAND ${ERGO_EXPECT}
  "--match=^ergo: online: each significant region searches for its setting in up to 40 executions, then runs at its choice: up to 40 steps for a region run once per step\n"
  "--match=\nergo: online: step 5: 0 of 1 region converged, 35 executions left at most, about 35 steps to go\n"
  -- sh -c "${say_lib}
app=$1; rm -f onprog.json
ERGO_POLICY=online ERGO_MODEL=onprog.json ERGO_TUNE_PROGRESS=step run online --steps 5
ERGO_POLICY=online ERGO_MODEL=onprog.json ERGO_TUNE_PROGRESS=0 run online --steps 5 >/dev/null
case \$out in *'online: step'*) echo 'FAIL: a progress line under ERGO_TUNE_PROGRESS=0'; exit 1;; esac
" sh ${say_app})

# A bad ERGO_TUNE_PROGRESS: one warning naming it, the accepted values and the default used.
add_test(NAME tuning_say_bad_progress COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: ERGO_TUNE_PROGRESS='often' is not valid: expected seconds between tuning progress lines from 0 \\(off\\) to 86400, or 'step' for one line per ergo_step; using 10\n"
  -- sh -c "${say_lib}
app=$1; rm -f bad.json
ERGO_POLICY=online ERGO_MODEL=bad.json ERGO_TUNE_PROGRESS=often run online --steps 41
one_warning" sh ${say_app})

# ERGO_WORK (issue 14, item 1b): a bad value is one warning naming it and the values; none takes
# the sim node's work counter away (the report says the region's work measure is none, where it
# is the counter by default); instructions on the sim node is one warning (the node counts its
# own work).
add_test(NAME tuning_work_choice COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: ERGO_WORK='cycles' is not valid: expected auto \\(the sim node's modelled work; none on a real node\\), instructions \\(instructions retired, counted by perf\\) or none; using auto\n"
  "--match=ergo: warning: ERGO_WORK=instructions: the sim node counts its own modelled work, which the tuner uses"
  -- sh -c "${say_lib}
app=$1; rm -f w.json w-auto.json w-none.json
ERGO_POLICY=online ERGO_MODEL=w.json ERGO_WORK=cycles run online --steps 3
one_work
ERGO_POLICY=online ERGO_MODEL=w.json ERGO_WORK=instructions run online --steps 3
one_work
ERGO_POLICY=online ERGO_MODEL=w.json ERGO_REPORT_JSON=w-auto.json run online --steps 3 >/dev/null
ERGO_POLICY=online ERGO_MODEL=w.json ERGO_WORK=none ERGO_REPORT_JSON=w-none.json run online --steps 3 >/dev/null
grep -q '\"work\": \"counter\"' w-auto.json || { echo 'FAIL: the default run measured no work by the counter'; exit 1; }
grep -q '\"work\": \"counter\"' w-none.json && { echo 'FAIL: ERGO_WORK=none still used the counter'; exit 1; }
grep -q '\"work\": \"none\"' w-none.json || { echo 'FAIL: ERGO_WORK=none: no region says work none'; exit 1; }
exit 0" sh ${say_app})
# On this machine (not the sim node): instructions retired where perf counts them (one info line
# says so), else one warning that says why and the fix, and the run goes on tuning on time.
add_test(NAME tuning_work_instructions_real COMMAND ${ERGO_EXPECT}
  "--match=ergo: (warning: ERGO_WORK=instructions: perf [^\n]*fix: [^\n]*; the tuner goes on without a work counter|ERGO_WORK=instructions: each execution's work is the instructions retired in user space by every thread \\(perf\\))\n"
  -- sh -c "${say_lib}
app=$1; rm -f wi.json
ERGO_POLICY=online ERGO_OBJECTIVE=time ERGO_ENERGY=none ERGO_MODEL=wi.json ERGO_WORK=instructions run online --ms 3 --steps 3" sh ${say_app})

# The fixed policy's summary: its one setting, as ERGO_FIXED takes it.
add_test(NAME tuning_say_fixed_summary COMMAND ${ERGO_EXPECT}
  "--match=ergo: fixed: cpu=1500000 for the whole run \\(the fixed policy writes no model\\)\n"
  -- sh -c "${say_lib}
app=$1
ERGO_POLICY=fixed ERGO_FIXED=cpu=1500000 run fixed --steps 2" sh ${say_app})

set(say_tests tuning_say_fixed_summary tuning_say_no_region tuning_say_foreign_model tuning_say_missing_entry tuning_say_no_significant_online
  tuning_say_no_significant_sweep tuning_say_once tuning_say_sweep_progress
  tuning_say_online_progress tuning_say_bad_progress tuning_work_choice)
set_tests_properties(${say_tests} PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
set_tests_properties(tuning_work_instructions_real PROPERTIES WORKING_DIRECTORY ${say_dir}
  FAIL_REGULAR_EXPRESSION "FAIL:"
  ENVIRONMENT "ERGO_REPORT=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;ERGO_STATE_DIR=${say_dir}/state")
set_tests_properties(tuning_say_no_meter PROPERTIES WORKING_DIRECTORY ${say_dir}
  FAIL_REGULAR_EXPRESSION "FAIL:" ENVIRONMENT
  "ERGO_PLATFORM=real;ERGO_ENERGY=none;ERGO_KNOBS=threads;OMP_NUM_THREADS=2;ERGO_OBJECTIVE=energy;ERGO_MIN_REGION_MS=1;ERGO_POLICY=online;ERGO_MODEL=nometer.json;ERGO_REPORT=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;ERGO_STATE_DIR=${say_dir}/state")

# A time-only objective needs no energy meter (issue 14, item 5): online and sweep tune the
# region on time alone, without a warning, and write a model that has it.
foreach(policy online sweep)
  foreach(objective time weighted:t=1,e=0)
    string(REGEX REPLACE "[^a-z0-9]" "_" obj_id "${objective}")
    # ERGO_RETUNE=off: the busy wait's time follows the machine's load, which a re-tune would
    # rightly follow, and a loaded test machine then leaves the new search unfinished.  160 steps:
    # on real hardware online's search may take 120 executions (40, and up to 80 to confirm its
    # choice when the repeats show noise, as a slow sanitizer build's busy waits do), after the
    # executions that judge significance, and margin for a loaded machine.  Each test
    # has its own model file: ctest -j runs them side by side in one directory.
    add_test(NAME tuning_say_no_meter_${obj_id}_${policy} COMMAND ${ERGO_EXPECT}
      "--match=\nergo: tuning summary \\(${policy}, [^)]*\\): 1 region, expected per execution against the untuned baseline:\nergo:   region +setting +energy saved +time\nergo:   Global/phase_solve +threads=[0-9]+ +- +[-+][0-9]+\\.[0-9]%\nergo: tuning model written to nm-${obj_id}-${policy}\\.json\n"
      -- sh -c "${say_lib}
app=$1; rm -f nm-${obj_id}-${policy}.json
run ${policy} --ms 3 --steps 160 >/dev/null
case \$out in *'nothing to tune'*) echo \"SKIPPED: no knob has two values here: \$out\"; exit 77;; esac
printf '%s\n' \"\$out\"
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})
    set_tests_properties(tuning_say_no_meter_${obj_id}_${policy} PROPERTIES SKIP_RETURN_CODE 77
      WORKING_DIRECTORY ${say_dir} FAIL_REGULAR_EXPRESSION "FAIL:" ENVIRONMENT
      "ERGO_PLATFORM=real;ERGO_ENERGY=none;ERGO_KNOBS=threads;OMP_NUM_THREADS=2;ERGO_OBJECTIVE=${objective};ERGO_MIN_REGION_MS=1;ERGO_RETUNE=off;ERGO_POLICY=${policy};ERGO_MODEL=nm-${obj_id}-${policy}.json;ERGO_TUNE_PROGRESS=0;ERGO_SWEEP=budget=12;ERGO_REPORT=none;ERGO_REPORT_STEPS=none;ERGO_BALANCE=none;ERGO_STATE_DIR=${say_dir}/state")
  endforeach()
endforeach()

# Significance (issue 14, items 2 and 5), on the sim node under online and sweep.
set(sig_tests)
foreach(policy online sweep)
  # A region with no work of its own whose child is too short to tune and whose grandchild is
  # significant: only the grandchild is tuned; the two above it are named as not significant.
  add_test(NAME tuning_significance_nested_${policy} COMMAND ${ERGO_EXPECT}
    "--match=\nergo: tuning summary \\(${policy}, energy@5%\\): 1 region, [^\n]*\nergo:   region [^\n]*\nergo:   Global/phase_outer/phase_mid/phase_solve +cpu="
    "--match=\nergo: 2 regions judged not significant, so not tuned \\(own time per execution, median of the last 3, below ERGO_MIN_REGION_MS=100 ms\\): 'Global/phase_outer' 0\\.[0-9]+ ms, 'Global/phase_outer/phase_mid' 0\\.[0-9]+ ms\n"
    -- sh -c "${say_lib}
app=$1; rm -f nest-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=nest-${policy}.json run ${policy} --nest --steps 45" sh ${say_app})
  # 98 ms at its first execution, 103 ms (above the 100 ms threshold) at every other: tuned.
  # (The sim node's first execution carries a start cost: 81 ms of work measures 98 ms.)
  add_test(NAME tuning_significance_first_short_${policy} COMMAND ${ERGO_EXPECT}
    "--match=\nergo: tuning summary \\(${policy}, energy@5%\\): 1 region, [^\n]*\nergo:   region [^\n]*\nergo:   Global/phase_solve +cpu="
    -- sh -c "${say_lib}
app=$1; rm -f first-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=first-${policy}.json run ${policy} --ms 103 --first 81 --steps 45
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})
  # 10 ms at the start, growing to 200 ms at the end: tuned once it crosses 100 ms.
  add_test(NAME tuning_significance_grows_${policy} COMMAND ${ERGO_EXPECT}
    "--match=\nergo: tuning summary \\(${policy}, energy@5%\\): 1 region, [^\n]*\nergo:   region [^\n]*\nergo:   Global/phase_solve +cpu="
    -- sh -c "${say_lib}
app=$1; rm -f grow-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=grow-${policy}.json run ${policy} --ms 10 --grow 20 --steps 90
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})
  # A short region beside a tuned one: named with the median it was judged on.
  add_test(NAME tuning_significance_small_named_${policy} COMMAND ${ERGO_EXPECT}
    "--match=\nergo: 1 region judged not significant, so not tuned \\(own time per execution, median of the last 3, below ERGO_MIN_REGION_MS=100 ms\\): 'Global/phase_small' [5-7]\\.[0-9]+ ms\n"
    -- sh -c "${say_lib}
app=$1; rm -f small-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=small-${policy}.json run ${policy} --small 5 --steps 45" sh ${say_app})
  # 300 ms at the start, shrinking to 6 ms at the end: tuned from the start, and said at the end
  # to have shrunk below half the threshold (tuned still).
  add_test(NAME tuning_significance_shrank_${policy} COMMAND ${ERGO_EXPECT}
    "--match=\nergo: 1 tuned region ran below half ERGO_MIN_REGION_MS=100 ms per execution once judged significant \\(own time, mean of its last 20: its work shrank, or a child tuned on its own took it\\); tuned still, as a region once significant stays so: 'Global/phase_solve' [34][0-9]\\.[0-9] ms\n"
    -- sh -c "${say_lib}
app=$1; rm -f shrank-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=shrank-${policy}.json run ${policy} --ms 300 --grow 0.02 --steps 90" sh ${say_app})
  list(APPEND sig_tests tuning_significance_nested_${policy} tuning_significance_first_short_${policy}
    tuning_significance_grows_${policy} tuning_significance_small_named_${policy}
    tuning_significance_shrank_${policy})
endforeach()
set_tests_properties(${sig_tests} PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_SWEEP=budget=12" FAIL_REGULAR_EXPRESSION "FAIL:")

# The static policy applies a region's setting from its first execution when the model measured
# it as significant: a one-step run already saves energy against the untuned one.
if(TARGET ergo-cli)
  add_test(NAME tuning_say_static_first_execution COMMAND ${ERGO_EXPECT}
    "--match=\nst1\\.json +[0-9.]+ +[0-9.]+ +[1-9][0-9]*\\.[0-9]+% "
    -- sh -c "${say_lib}
app=$1; rm -f first.json mon1.json st1.json
ERGO_POLICY=online ERGO_MODEL=first.json run online --steps 45 >/dev/null
ERGO_POLICY=monitor ERGO_REPORT_JSON=mon1.json run monitor --steps 1 >/dev/null
ERGO_POLICY=static ERGO_MODEL=first.json ERGO_REPORT_JSON=st1.json run static --steps 1 >/dev/null
$2 compare mon1.json st1.json" sh ${say_app} $<TARGET_FILE:ergo-cli>)
  set_tests_properties(tuning_say_static_first_execution PROPERTIES WORKING_DIRECTORY ${say_dir}
    ENVIRONMENT "${say_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
endif()

# Work that changes (issue 14, items 1 and 5), on the sim node with 5 % noise: a region whose work
# turns memory-bound at step 80, and one tuned while the machine was loaded (30 % more time that
# no setting changes, gone at step 100), is searched again (online) or its schedule starts again
# (sweep), once, and the run ends with a model and no warning; steady work under the same noise
# is never searched again.
set(retune_tests)
foreach(policy online sweep)
  if(policy STREQUAL "online")
    set(retune_line "ergo: online: 1 region measured differently at its chosen config after its search \\(the work changed\\), so its search started again \\(first: 'Global/phase_solve', 1 time, last at step [0-9]+\\)")
    set(cut_line "ergo: warning: online: 1 region whose work changed did not end its search started again before the run did \\(first: 'Global/phase_solve', [0-9]+ of up to 120 executions into it\\); the model has the baseline there, as under a slowdown bound a search cut short is not taken \\(fix: run more steps\\)")
  else()
    set(retune_line "ergo: sweep: 1 region measured differently at its best config after its schedule \\(the work changed\\), so its schedule started again \\(first: 'Global/phase_solve', 1 time, last at step [0-9]+\\)")
    set(cut_line "ergo: warning: sweep: 1 region whose work changed had not reached its new schedule's decision when the run ended \\(first: 'Global/phase_solve', [0-9]+ executions into it\\); the model has the baseline there \\(fix: run more steps, or ERGO_SWEEP=budget=N for a shorter schedule\\)")
  endif()
  foreach(case phase load)
    if(case STREQUAL "phase")
      set(case_args "--phase 80")
    else()
      set(case_args "--load 0.3:100")
    endif()
    add_test(NAME tuning_retune_${case}_${policy} COMMAND ${ERGO_EXPECT}
      "--match=\nergo: tuning summary \\(${policy}, energy@5%\\): 1 region, " "--match=\n${retune_line}"
      -- sh -c "${say_lib}
app=$1; rm -f retune-${case}-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=retune-${case}-${policy}.json run ${policy} --steps 200 ${case_args}
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac
" sh ${say_app})
    list(APPEND retune_tests tuning_retune_${case}_${policy})
  endforeach()
  add_test(NAME tuning_retune_steady_${policy} COMMAND ${ERGO_EXPECT}
    "--match=\nergo: tuning summary \\(${policy}, energy@5%\\): 1 region, "
    -- sh -c "${say_lib}
app=$1; rm -f retune-steady-${policy}.json
for seed in 1 2 3 4 5; do
  ERGO_SIM_SEED=\$seed ERGO_POLICY=${policy} ERGO_MODEL=retune-steady-${policy}.json run ${policy} --steps 200
  case \$out in *'started again'*) echo \"FAIL: seed \$seed re-tuned steady work\"; exit 1;; esac
done" sh ${say_app})
  list(APPEND retune_tests tuning_retune_steady_${policy})
  # The work changes so late (step 185 of 200) that the search or schedule started again cannot
  # end before the run does: one warning names the region, says how far its new tuning got and
  # what the model has for it (under energy@5%: the baseline), and the fix.
  add_test(NAME tuning_retune_cut_${policy} COMMAND ${ERGO_EXPECT} "--match=\n${cut_line}\n"
    -- sh -c "${say_lib}
app=$1; rm -f retune-cut-${policy}.json
ERGO_POLICY=${policy} ERGO_MODEL=retune-cut-${policy}.json run ${policy} --steps 200 --phase 185
one_warning" sh ${say_app})
  list(APPEND retune_tests tuning_retune_cut_${policy})
endforeach()
set_tests_properties(${retune_tests} PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_SWEEP=budget=60;ERGO_SIM_NOISE=0.05"
  FAIL_REGULAR_EXPRESSION "FAIL:")
# Work that keeps changing, and not along a line, without a measure of it (ERGO_WORK=none, no
# hint): twice as long in every other block of 15 steps.  Each search's checks see a change, and
# once online's search has started again as often as allowed one warning says so, where the
# region was left, and the fix (the hint).
add_test(NAME tuning_retune_worn_online COMMAND ${ERGO_EXPECT}
  "--match=\nergo: warning: online: 1 region kept changing its work: its search started again 8 times, the most allowed \\(first: 'Global/phase_solve', left at [^)]+\\) \\(fix: call ergo_region_work\\(units\\) in it with each execution's work, so configs are compared per unit of work and work that grows is no change; or set ERGO_WORK=instructions where the node counts them\\)\n"
  -- sh -c "${say_lib}
app=$1; rm -f worn.json
ERGO_POLICY=online ERGO_MODEL=worn.json run online --ms 150 --toggle 15 --steps 200
one_warning" sh ${say_app})
set_tests_properties(tuning_retune_worn_online PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_WORK=none" FAIL_REGULAR_EXPRESSION "FAIL:")
# Work that grows 20x over the run along a line, without a measure of it: online follows the
# baseline's trend from the second change on (policies/trend.h), so its search starts again twice
# and ends, no warning is printed (before the trend: 8 times, the warning above, and the region
# left at its baseline), and one line says the region was followed along the trend, from when.
add_test(NAME tuning_ramp_followed_online COMMAND ${ERGO_EXPECT}
  "--match=started again \\(first: 'Global/phase_solve', [1-3] times?, last at step [0-9]+\\)"
  "--match=\nergo: online: 1 region's work ramped with nothing measuring it, so from the step it was seen \\(first: 'Global/phase_solve', step [0-9]+\\) each config was compared with the baseline's trend at its own step \\(ergo_region_work\\(units\\) in it would measure the work exactly\\)\n"
  -- sh -c "${say_lib}
app=$1; rm -f ramp.json
ERGO_POLICY=online ERGO_MODEL=ramp.json run online --ms 30 --grow 20 --steps 200
n=\$(printf '%s\\n' \"\$out\" | grep -c 'warning:'); [ \"\$n\" = 0 ] || echo \"FAIL: \$n warning lines\"" sh ${say_app})
set_tests_properties(tuning_ramp_followed_online PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_WORK=none" FAIL_REGULAR_EXPRESSION "FAIL:")
# The same cut short where nothing measures the region's work (ERGO_WORK=none, no hint): the fix
# also names the hint, since without it work that grows or shrinks looks like a change.
add_test(NAME tuning_retune_cut_sweep_no_work COMMAND ${ERGO_EXPECT}
  "--match=\nergo: warning: sweep: 1 region whose work changed had not reached its new schedule's decision when the run ended \\(first: 'Global/phase_solve', [0-9]+ executions into it\\); the model has the baseline there \\(fix: run more steps, or ERGO_SWEEP=budget=N for a shorter schedule; where the work grows or shrinks, ergo_region_work\\(units\\) in the region so that it is compared per unit of work\\)\n"
  -- sh -c "${say_lib}
app=$1; rm -f cut-no-work.json
ERGO_POLICY=sweep ERGO_MODEL=cut-no-work.json run sweep --steps 200 --phase 185
one_warning" sh ${say_app})
set_tests_properties(tuning_retune_cut_sweep_no_work PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_SWEEP=budget=60;ERGO_SIM_NOISE=0.05;ERGO_WORK=none"
  FAIL_REGULAR_EXPRESSION "FAIL:")
# Outliers (issue 14): a stall every 7th step (the solve 1.8x as long, as a daemon or a network
# stall makes one) at 3 % noise.  Sweep sets the stalls aside from its means and says how many,
# and a stall in a block watched after the schedule does not start it again (the block's mean
# moved 15 % and did, twice in 120 steps; its median does not).  Nor does online's search start
# again (it did four times in 200 steps: a stalled block, or a probe of the baseline with one of
# its two executions stalled).
add_test(NAME tuning_outliers_sweep COMMAND ${ERGO_EXPECT}
  "--match=\nergo: sweep: [1-9][0-9]* executions? in 1 region set aside as outliers \\(off (its|their) config's median by more than 10 % or 5 sigmas of the noise, not the work changing: a stall on the node; first: 'Global/phase_solve', [1-9][0-9]*\\); the model's means are of the rest\n"
  -- sh -c "${say_lib}
app=$1; rm -f stall.json
ERGO_POLICY=sweep ERGO_MODEL=stall.json run sweep --steps 200 --stall 7
case \$out in *'started again'*) echo 'FAIL: a stall started the schedule again'; exit 1;; esac
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})
add_test(NAME tuning_outliers_online COMMAND ${ERGO_EXPECT}
  "--match=\nergo: tuning summary \\(online, energy@5%\\): 1 region, "
  -- sh -c "${say_lib}
app=$1; rm -f stall-online.json
for k in 5 7 11; do
  ERGO_POLICY=online ERGO_MODEL=stall-online.json run online --steps 200 --stall \$k
  case \$out in *'started again'*) echo \"FAIL: a stall every \$k steps started the search again\"; exit 1;; esac
  case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac
done" sh ${say_app})
set_tests_properties(tuning_outliers_sweep tuning_outliers_online PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_SWEEP=budget=60;ERGO_SIM_NOISE=0.03"
  FAIL_REGULAR_EXPRESSION "FAIL:")
# A search that starts again at the run's last step (the work changed at step 80) has measured
# nothing of the new work: the model keeps the region at its baseline, timed, so that static
# presets it there; it had no entry at all, and under a parent with a setting of its own the
# region ran at that setting (random program 3059: 8.2x its baseline's time under static).  The
# loop finds the run whose last step started the search again, so the case is always met.
add_test(NAME tuning_restart_at_end_online COMMAND ${ERGO_EXPECT}
  "--match=met at [0-9]+ steps\n"
  -- sh -c "${say_lib}
app=$1; met=0
for n in 81 82 83 84 85 86 87 88 89 90 91 92 93 94; do
  rm -f end.json
  ERGO_POLICY=online ERGO_MODEL=end.json run online --steps \$n --phase 80
  case \$out in *\"last at step \$((n - 1))\"*) ;; *) continue;; esac
  tr -d ' \\n' < end.json | grep -q '\"Global/phase_solve\":{\"config\":{\"core_khz\":2000000,\"uncore_khz\":2400000,\"threads\":20},\"baseline\":{\"time_s\":0\\.[0-9]' || { echo \"FAIL: after a restart at the last step (\$n steps) the model has no baseline entry: \$(cat end.json)\"; exit 1; }
  met=\$n
done
[ \$met != 0 ] || { echo 'FAIL: no run started its search again at its last step'; exit 1; }
echo \"met at \$met steps\"" sh ${say_app})
set_tests_properties(tuning_restart_at_end_online PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0;ERGO_SIM_NOISE=0.05" FAIL_REGULAR_EXPRESSION "FAIL:")
# The cost of tuning (issue 14, item 4).  A simple front: sweep's schedule for tune_cases' one
# region ends long before the 300 executions its budget allows (before step 100; the 5x5x5 grid
# and its refinement took the whole budget).
add_test(NAME tuning_cost_sweep_short_schedule COMMAND ${ERGO_EXPECT}
  "--match=\nergo: sweep: step [1-9][0-9]?: 1 of 1 region done, 0 executions left at most\n"
  -- sh -c "${say_lib}
app=$1; rm -f short.json
ERGO_POLICY=sweep ERGO_MODEL=short.json ERGO_TUNE_PROGRESS=step run sweep --steps 100
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})
# A budget nothing can be explored within: online stops exploring, runs a setting that keeps it
# (the baseline) and says so, naming the budget and the region.
add_test(NAME tuning_cost_online_budget_said COMMAND ${ERGO_EXPECT}
  "--match=\nergo: online: the tuning run kept within ERGO_TUNE_BUDGET=time=1\\.0,energy=1\\.0,horizon=10 \\(energy at most 1\\.00x and time at most 1\\.00x the untuned run's over each region's first 10 steps\\): [1-9][0-9]* configs? not tried for (its|their) cost, 1 region stopped exploring early \\(first: 'Global/phase_solve'\\)\nergo: online: 1 region ran at a setting within the budget rather than the model's choice, which a run under ERGO_POLICY=static applies \\(first: 'Global/phase_solve' at cpu=2000000,uncore=2400000,threads=20\\)\n"
  -- sh -c "${say_lib}
app=$1; rm -f budget.json
ERGO_TUNE_BUDGET=time=1.0,energy=1.0,horizon=10 ERGO_OBJECTIVE=energy ERGO_POLICY=online ERGO_MODEL=budget.json run online --steps 45
case \$out in *warning*) echo 'FAIL: warned'; exit 1;; esac" sh ${say_app})
# A bad ERGO_TUNE_BUDGET: one warning naming it, what is accepted, and that the default applies.
add_test(NAME tuning_cost_bad_budget COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: ERGO_TUNE_BUDGET=time=0\\.9: 'time=0\\.9' is not understood \\(accepted: off, or energy=X,time=Y,horizon=N with X and Y ratios to the untuned run from 1 to 100 and N executions from 1, e\\.g\\. energy=1\\.0,time=1\\.10,horizon=200\\); the default budget applies\n"
  -- sh -c "${say_lib}
app=$1; rm -f badbudget.json
ERGO_TUNE_BUDGET=time=0.9 ERGO_POLICY=online ERGO_MODEL=badbudget.json run online --steps 45
one_warning" sh ${say_app})
set_tests_properties(tuning_cost_sweep_short_schedule tuning_cost_online_budget_said
  tuning_cost_bad_budget PROPERTIES WORKING_DIRECTORY ${say_dir}
  ENVIRONMENT "${say_env};ERGO_TUNE_PROGRESS=0" FAIL_REGULAR_EXPRESSION "FAIL:")

# A node with no knob to turn (ERGO_KNOBS=none): sweep says so as online does, once, and runs as
# monitor; before, it announced a 300-execution schedule and wrote an empty model.
foreach(pol sweep online)
  add_test(NAME tuning_say_nothing_to_tune_${pol} COMMAND ${ERGO_EXPECT}
    "--match=^ergo: warning: ERGO_POLICY=${pol}: no knob on this node has more than one value, so there is nothing to tune \\(`ergo info` says which knobs are missing and why\\); running as monitor \\(changes nothing\\)\ntune_cases: 3 steps done\n$"
    -- sh -c "${say_lib}
app=$1; rm -f none_${pol}.json
ERGO_KNOBS=none ERGO_POLICY=${pol} ERGO_MODEL=none_${pol}.json run ${pol} --steps 3
one_warning
[ ! -e none_${pol}.json ] || { echo 'FAIL: a model was written'; exit 1; }" sh ${say_app})
  set_tests_properties(tuning_say_nothing_to_tune_${pol} PROPERTIES WORKING_DIRECTORY ${say_dir}
    ENVIRONMENT "${say_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
endforeach()
