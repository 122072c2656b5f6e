# cli_tuning.cmake - ctests of `ergo run`, `ergo compare` and `ergo sweep --runs` on the sim
# mini-app: runs under a policy, the energy-to-solution table with savings, a model from one run
# per configuration that the static policy then applies, and the usage errors.
if(TARGET ergo-example-miniapp)
  set(tun_cli $<TARGET_FILE:ergo-cli>)
  set(tun_app $<TARGET_FILE:ergo-example-miniapp>)
  set(tun_dir ${CMAKE_CURRENT_BINARY_DIR}/cli_tuning)
  file(MAKE_DIRECTORY ${tun_dir})
  # Step and balance files and knob state land in the test's directory.
  set(tun_env "ERGO_STATE_DIR=${tun_dir}/state;ERGO_REPORT=none")
  set(tun_num "[0-9]+\\.[0-9]+")

  # monitor and fixed runs of the mini-app, then the table: totals with every energy domain,
  # the main regions, savings against the first run; then the same as CSV.
  add_test(NAME cli_tuning_compare COMMAND ${ERGO_EXPECT}
    "--match=^Energy to solution \\[SIMULATED\\] of 2 runs \\(saving: energy saved, time: time change, against monitor\\.json\\)\n\nrun +time s +energy J +saving +time +package-0 J +core-0 J +dram-0 J\nmonitor\\.json +${tun_num} +${tun_num} +ref +ref +${tun_num} +${tun_num} +${tun_num}\nfixed\\.json +${tun_num} +${tun_num} +-?${tun_num}% +\\+${tun_num}% +${tun_num} +${tun_num} +${tun_num}\n\\(core-0 is part of its package, not added to the total\\)\n\nregion +run +time s +energy J +saving +time  setting applied\nTimestep +monitor\\.json +${tun_num} +${tun_num} +ref +ref\n +fixed\\.json +${tun_num} +${tun_num} +-?${tun_num}% +\\+${tun_num}%  core_khz=1500000 [^\n]*threads=10\nTimestep/FIND_HSML +monitor\\.json .*Timestep/HYDRO_ACCEL +monitor\\.json .*run,file,region,depth,time_s,energy_j,energy_saving_pct,time_change_pct,package-0_j,core-0_j,dram-0_j,platform,label,setting\nmonitor\\.json,monitor\\.json,Global,0,${tun_num},${tun_num},0,0,${tun_num},${tun_num},${tun_num},sim,SIMULATED,\nfixed\\.json,fixed\\.json,Global,0,${tun_num},${tun_num},-?${tun_num},${tun_num},${tun_num},${tun_num},${tun_num},sim,SIMULATED,\nmonitor\\.json,monitor\\.json,Timestep,1,${tun_num},${tun_num},0,0,${tun_num},${tun_num},${tun_num},sim,SIMULATED,\nfixed\\.json,fixed\\.json,Timestep,1,[^\n]*,sim,SIMULATED,core_khz=1500000 [^\n]*threads=10\n"
    -- sh -c [=[
cli=$1 app=$2
rm -f monitor.json fixed.json
"$cli" run --platform sim --policy monitor --report-json monitor.json -- "$app" --steps 3 >/dev/null 2>&1 || { echo "FAIL: monitor run"; exit 1; }
[ "$(ERGO_POLICY=bogus "$cli" run --policy monitor -- sh -c 'echo $ERGO_POLICY')" = monitor ] || { echo "FAIL: --policy not exported"; exit 1; }
ERGO_FIXED=cpu=1500000,threads=10 "$cli" run --platform=sim --policy fixed --report-json fixed.json -- "$app" --steps 3 >/dev/null 2>&1 || { echo "FAIL: fixed run"; exit 1; }
"$cli" compare monitor.json fixed.json || { echo "FAIL: compare"; exit 1; }
"$cli" compare --csv monitor.json fixed.json || { echo "FAIL: compare --csv"; exit 1; }
]=] sh ${tun_cli} ${tun_app})
  set_tests_properties(cli_tuning_compare PROPERTIES WORKING_DIRECTORY ${tun_dir}
    ENVIRONMENT "${tun_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # One run per configuration of the small grid, one model; the static policy loads it without
  # a word and saves energy against the untuned run.
  add_test(NAME cli_tuning_sweep_runs COMMAND ${ERGO_EXPECT}
    "--match=ergo sweep: 12 runs of [^\n]* on platform sim \\(untuned, then 11 configurations\\)\nergo sweep: run 1/12 untuned: ${tun_num} s, ${tun_num} J\n.*ergo sweep: run 12/12 cpu=[^\n]*\nergo sweep: best configurations \\(energy@5%\\), against the untuned run:\n.*ergo sweep: model of [1-9][0-9]* regions written to runs-model\\.json\n.*\nstatic\\.json +${tun_num} +${tun_num} +${tun_num}% "
    -- sh -c [=[
cli=$1 app=$2
rm -rf runs-model.json untuned.json static.json tmp && mkdir tmp
TMPDIR=$PWD/tmp "$cli" sweep --runs --platform sim --grid small --out runs-model.json -- "$app" --steps 2 || { echo "FAIL: sweep --runs"; exit 1; }
grep -q '"format": "ergo-model"' runs-model.json && grep -q '"policy": "sweep-runs"' runs-model.json || { echo "FAIL: not a model"; exit 1; }
# Open MPI's singleton keeps its session directory in TMPDIR and may remove it a moment after
# the program exits: not ergo's files.  Anything else left is.
left() { ls -A tmp | grep -Ev '^(ompi\.|openmpi-sessions|pmix)' || true; }
for i in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(left)" ] && break; sleep 0.5; done
[ -z "$(left)" ] || { echo "FAIL: the runs' files were left in tmp: $(left | tr '\n' ' ')"; exit 1; }
"$cli" run --platform sim --report-json untuned.json -- "$app" --steps 2 >/dev/null 2>&1 || { echo "FAIL: untuned run"; exit 1; }
out=$(ERGO_POLICY=static ERGO_MODEL=runs-model.json ERGO_PLATFORM=sim ERGO_REPORT_JSON=static.json "$app" --steps 2 2>&1) || { echo "FAIL: static run: $out"; exit 1; }
case $out in *"tuning model"*|*error*|*warning*) echo "FAIL: static said: $out"; exit 1;; esac
"$cli" compare untuned.json static.json
]=] sh ${tun_cli} ${tun_app})
  set_tests_properties(cli_tuning_sweep_runs PROPERTIES WORKING_DIRECTORY ${tun_dir}
    ENVIRONMENT "${tun_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # The sweep inside one run (ERGO_POLICY=sweep) writes a model at the end that static applies.
  add_test(NAME cli_tuning_sweep_policy COMMAND ${ERGO_EXPECT}
    "--match=\nstatic\\.json +${tun_num} +${tun_num} +${tun_num}% "
    -- sh -c [=[
cli=$1 app=$2
rm -f sweep-model.json untuned.json static.json
out=$("$cli" run --platform sim --policy sweep --model sweep-model.json -- "$app" --steps 320 2>&1) || { echo "FAIL: sweep run: $out"; exit 1; }
case $out in *warning*) echo "FAIL: sweep said: $out"; exit 1;; esac
grep -q '"policy": "sweep"' sweep-model.json || { echo "FAIL: no sweep model"; exit 1; }
"$cli" run --platform sim --report-json untuned.json -- "$app" --steps 2 >/dev/null 2>&1 || { echo "FAIL: untuned run"; exit 1; }
"$cli" run --platform sim --policy static --model sweep-model.json --report-json static.json -- "$app" --steps 2 >/dev/null 2>&1 || { echo "FAIL: static run"; exit 1; }
"$cli" compare untuned.json static.json
]=] sh ${tun_cli} ${tun_app})
  set_tests_properties(cli_tuning_sweep_policy PROPERTIES WORKING_DIRECTORY ${tun_dir}
    ENVIRONMENT "${tun_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
  # The three share the directory's report files.
  set_tests_properties(cli_tuning_compare cli_tuning_sweep_runs cli_tuning_sweep_policy
    PROPERTIES RESOURCE_LOCK cli_tuning_dir)

  # Usage errors: one line naming the value and what is accepted, exit code 2; a report that
  # cannot be read is one line naming it, exit code 1; ergo run exits with the application's
  # status.
  set(tun_expected_obj "expected energy, time, edp, ed2p, weighted\\[:t=W,e=W,r=W\\] \\(weights >= 0, not all 0\\) or energy@N% \\(N from 0 to 1000\\)")
  add_test(NAME cli_tuning_run_bad_policy COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: --policy 'bogus' is not valid: expected monitor, fixed, static, sweep or online\n$"
    -- ${tun_cli} run --policy bogus -- true)
  # A report on the tuning model's file would destroy the model: refused before APP starts.
  add_test(NAME cli_tuning_run_report_is_model COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: --report-json 'x\\.json' is the tuning model's file \\(--model 'x\\.json'\\): the report would overwrite the model \\(fix: give the report another path\\)\n$"
    -- ${tun_cli} run --policy online --model x.json --report-json x.json -- sh -c "echo APP started")
  add_test(NAME cli_tuning_run_bad_objective COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: --objective 'energy@' is not valid: ${tun_expected_obj}\n$"
    -- ${tun_cli} run --objective energy@ -- true)
  add_test(NAME cli_tuning_run_bad_platform COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: --platform 'gpu' is not valid: expected real, sim or auto\n$"
    -- ${tun_cli} run --platform=gpu -- true)
  add_test(NAME cli_tuning_run_no_app COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: no application given: expected ergo run \\[options\\] -- APP \\[ARGS...\\]\n$"
    -- ${tun_cli} run --policy monitor)
  add_test(NAME cli_tuning_run_missing_value COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: --model needs a value \\(--help lists them\\)\n$"
    -- ${tun_cli} run --model)
  add_test(NAME cli_tuning_run_unknown COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: unknown option '--polcy': expected --policy, --objective, --model, --platform, --report-json, --help, or -- before the application\n$"
    -- ${tun_cli} run --polcy static -- true)
  add_test(NAME cli_tuning_run_no_model COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: the tuning model '${tun_dir}/absent.json' cannot be read: No such file or directory \\(static needs one: write it with --policy sweep or `ergo sweep --runs`\\)\n$"
    -- ${tun_cli} run --policy static --model ${tun_dir}/absent.json -- true)
  # A file that is not a model (a report) is refused before the application starts as well: it
  # ran the job as monitor and exited 0.
  file(WRITE ${tun_dir}/not-a-model.json "{\"format\": \"ergo-report\", \"version\": 2}\n")
  add_test(NAME cli_tuning_run_not_a_model COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: [^\n]*not-a-model.json[^\n]*\n$"
    -- ${tun_cli} run --policy static --model ${tun_dir}/not-a-model.json -- true)
  add_test(NAME cli_tuning_run_status COMMAND ${ERGO_EXPECT} --rc=7
    -- ${tun_cli} run -- sh -c "exit 7")
  add_test(NAME cli_tuning_run_not_found COMMAND ${ERGO_EXPECT} --rc=127
    "--match=^ergo run: cannot run '${tun_dir}/no-such-app': No such file or directory\n$"
    -- ${tun_cli} run -- ${tun_dir}/no-such-app)
  add_test(NAME cli_tuning_compare_none COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo compare: no report given: expected one or more JSON reports \\(ERGO_REPORT_JSON, ergo run --report-json\\)\n$"
    -- ${tun_cli} compare --csv)
  add_test(NAME cli_tuning_compare_missing COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo compare: '${tun_dir}/absent.json': cannot be read: [^\n]*No such file or directory \\(fix: give the JSON reports ergo wrote\\)\n$"
    -- ${tun_cli} compare ${tun_dir}/absent.json)
  file(WRITE ${tun_dir}/truncated.json "{\"format\": \"ergo-report\", \"version\": 1, \"threads\": [")
  file(WRITE ${tun_dir}/foreign.json "{\"format\": \"ergo-model\", \"version\": 1, \"regions\": {}}\n")
  file(WRITE ${tun_dir}/treeless.json "{\"format\": \"ergo-report\", \"version\": 1, \"threads\": []}\n")
  add_test(NAME cli_tuning_compare_truncated COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo compare: '${tun_dir}/truncated.json': is not valid JSON: [^\n]* \\(line 1, column [0-9]+\\)\n$"
    -- ${tun_cli} compare ${tun_dir}/truncated.json)
  add_test(NAME cli_tuning_compare_foreign COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo compare: '${tun_dir}/foreign.json': is not an ergo JSON report: its format is 'ergo-model', expected 'ergo-report' \\(write one with ERGO_REPORT_JSON or ergo run --report-json\\)\n$"
    -- ${tun_cli} compare ${tun_dir}/foreign.json)
  add_test(NAME cli_tuning_compare_treeless COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo compare: '${tun_dir}/treeless.json': has no main thread tree \\(threads\\[0\\]\\.tree with time_s\\): truncated\\?\n$"
    -- ${tun_cli} compare ${tun_dir}/treeless.json)
  add_test(NAME cli_tuning_sweep_no_runs COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo sweep: --runs is required: this command runs the application once per configuration \\(for a sweep inside one run: ergo run --policy sweep -- APP\\)\n$"
    -- ${tun_cli} sweep -- true)
  add_test(NAME cli_tuning_sweep_bad_grid COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo sweep: --grid 'gpu=1' is not valid: 'gpu=1' names no knob or option; expected KNOB=V,V,[.][.][.] with KNOB cpu or uncore \\(kHz\\) or threads and V a positive integer or FROM:TO:STEP, and options repeats=N \\(1 to 100\\) and budget=N \\(10 to 100000\\), separated by ',' or ';'\n$"
    -- ${tun_cli} sweep --runs --platform sim --grid gpu=1 -- true)
  # --out is checked before the first run, not after all of them.
  add_test(NAME cli_tuning_sweep_out_unwritable COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo sweep: --out '/nonexistent/m\\.json' cannot be written: directory '/nonexistent' does not exist \\(fix: create the directory or give another path\\)\n$"
    -- ${tun_cli} sweep --runs --platform sim --out /nonexistent/m.json -- ${tun_app} --steps 2)
  # Time-only objectives need no energy meter (the sim node's turned off: ERGO_ENERGY=none); an
  # objective that weighs energy is refused after the untuned run, naming the fix and the
  # directory its files are kept in.
  add_test(NAME cli_tuning_sweep_time_only COMMAND ${ERGO_EXPECT}
    "--match=ergo sweep: run 1/3 untuned: ${tun_num} s\n.*ergo sweep: best configurations \\(time\\), against the untuned run:\n  Global/Timestep +[^\n]*: time [-+]${tun_num}% \\(no energy measured\\)\n.*ergo sweep: model of [1-9][0-9]* regions written to time-model\\.json\n.*ergo sweep: best configurations \\(weighted:t=1,e=0,r=1\\)[^\n]*\n.*ergo sweep: model of [1-9][0-9]* regions written to weighted-model\\.json\n"
    -- sh -c [=[
cli=$1 app=$2
rm -f time-model.json weighted-model.json
ERGO_ENERGY=none "$cli" sweep --runs --platform sim --grid threads=1,2 --objective time --out time-model.json -- "$app" --steps 2 || { echo "FAIL: time"; exit 1; }
ERGO_ENERGY=none "$cli" sweep --runs --platform sim --grid threads=1,2 --objective weighted:t=1,r=1 --out weighted-model.json -- "$app" --steps 2 || { echo "FAIL: weighted"; exit 1; }
grep -q '"objective": "time"' time-model.json || { echo "FAIL: not a time model"; exit 1; }
# No meter measured the runs: energy null, not 0.0 (drawn as measured).
grep -q '"energy_j": null' time-model.json || { echo "FAIL: energy is not null"; exit 1; }
! grep -q '"energy_j": 0' time-model.json || { echo "FAIL: energy 0 stored as measured"; exit 1; }
]=] sh ${tun_cli} ${tun_app})
  set_tests_properties(cli_tuning_sweep_time_only PROPERTIES WORKING_DIRECTORY ${tun_dir}
    ENVIRONMENT "${tun_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
  add_test(NAME cli_tuning_sweep_no_energy COMMAND ${ERGO_EXPECT} --rc=1
    "--match=\nergo sweep: the untuned run measured no energy, which objective energy@5% weighs \\(no energy meter here: `ergo info` says why; fix: --objective time, ERGO_ENERGY=estimate, or --platform sim to simulate one\\)\nergo sweep: the runs' reports and output are kept in [^\n]*/noenergy-tmp/ergo-sweep-[A-Za-z0-9]+ \\(remove it when done\\)\nkept: run-1\\.json\n$"
    -- sh -c [=[
cli=$1 app=$2
rm -rf noenergy-tmp && mkdir noenergy-tmp
TMPDIR=$PWD/noenergy-tmp ERGO_ENERGY=none "$cli" sweep --runs --platform sim --grid threads=1,2 --out noenergy-model.json -- "$app" --steps 2 2>&1
rc=$?
[ -e noenergy-model.json ] && echo "FAIL: a model was written"
echo "kept: $(cd noenergy-tmp/ergo-sweep-* && ls run-1.json)"
exit $rc
]=] sh ${tun_cli} ${tun_app})
  set_tests_properties(cli_tuning_sweep_no_energy PROPERTIES WORKING_DIRECTORY ${tun_dir}
    ENVIRONMENT "${tun_env}" FAIL_REGULAR_EXPRESSION "FAIL:")
  # An option of one value given twice is refused (the last one was taken without a word).
  add_test(NAME cli_tuning_run_policy_twice COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo run: --policy given twice \\('monitor', then 'static'\\): expected it once\n$"
    -- ${tun_cli} run --policy monitor --policy=static -- true)
  add_test(NAME cli_tuning_sweep_out_twice COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo sweep: --out given twice \\('a\\.json', then 'b\\.json'\\): expected it once\n$"
    -- ${tun_cli} sweep --runs --out a.json --out b.json -- true)
  add_test(NAME cli_tuning_sweep_bad_objective COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo sweep: --objective 'speed' is not valid: ${tun_expected_obj}\n$"
    -- ${tun_cli} sweep --runs --objective speed -- true)
  set_tests_properties(cli_tuning_run_bad_policy cli_tuning_run_bad_objective
    cli_tuning_run_bad_platform cli_tuning_run_no_app cli_tuning_run_missing_value
    cli_tuning_run_unknown cli_tuning_run_no_model cli_tuning_run_status cli_tuning_run_not_found
    cli_tuning_compare_none cli_tuning_compare_missing cli_tuning_compare_truncated
    cli_tuning_compare_foreign cli_tuning_compare_treeless cli_tuning_sweep_no_runs
    cli_tuning_sweep_bad_grid cli_tuning_sweep_bad_objective cli_tuning_sweep_out_unwritable
    cli_tuning_run_policy_twice cli_tuning_sweep_out_twice
    PROPERTIES WORKING_DIRECTORY ${tun_dir} ENVIRONMENT "${tun_env}")
endif()
