# compare.cmake - `ergo compare` on reports that say how they were made (JSON report version 2):
# runs of another application refused (--force compares them), other step counts and regions
# warned about, --depth, the default table of every tuned region, --json, and the CSV's platform
# and label (SIMULATED) columns; then a real run's report: its "run" facts and the setting the
# tuner applied.
if(TARGET ergo-cli)
  set(cmp_cli $<TARGET_FILE:ergo-cli>)
  set(cmp_dir ${CMAKE_CURRENT_BINARY_DIR}/compare)
  file(MAKE_DIRECTORY ${cmp_dir})
  # A report of APP with STEPS steps on the sim node: Global 10 s, A (depth 1, tuned or not),
  # A/B (depth 2) and A/B/C (depth 3, tuned: its setting), plus an extra region D when asked.
  function(cmp_report file app steps a_time c_setting extra)
    set(energy "\"energy\": {\"unit\": \"J\", \"total\": 100.0, \"components\": {\"package-0\": 100.0}}")
    set(c "{\"name\": \"C\", \"path\": \"Global/A/B/C\", \"depth\": 3, \"time_s\": 1.0, ${energy}, \"setting\": ${c_setting}, \"children\": []}")
    set(b "{\"name\": \"B\", \"path\": \"Global/A/B\", \"depth\": 2, \"time_s\": 2.0, ${energy}, \"setting\": null, \"children\": [${c}]}")
    set(a "{\"name\": \"A\", \"path\": \"Global/A\", \"depth\": 1, \"time_s\": ${a_time}, ${energy}, \"setting\": null, \"children\": [${b}]}")
    if(extra)
      set(a "${a}, {\"name\": \"D\", \"path\": \"Global/D\", \"depth\": 1, \"time_s\": 1.0, ${energy}, \"setting\": null, \"children\": []}")
    endif()
    file(WRITE ${cmp_dir}/${file} "{\"format\": \"ergo-report\", \"version\": 2, \"platform\": \"sim\",
 \"run\": {\"application\": \"${app}\", \"ergo_version\": \"0.2.0\", \"host\": \"h\", \"date\": \"2026-11-25T00:00:00Z\", \"steps\": ${steps}, \"platform\": \"sim\", \"policy\": \"monitor\", \"objective\": null, \"model\": null, \"energy\": \"sim\"},
 \"quantities\": [{\"name\": \"energy\", \"unit\": \"J\", \"label\": \"SIMULATED\", \"components\": [\"package-0\"], \"total_of\": [\"package-0\"]}],
 \"threads\": [{\"thread\": 0, \"tree\": {\"name\": \"Global\", \"path\": \"Global\", \"depth\": 0, \"time_s\": 10.0, ${energy}, \"setting\": null, \"children\": [${a}]}}]}\n")
  endfunction()
  set(cmp_tuned "{\"core_khz\": 1800000, \"threads\": 8, \"varied\": false}")
  cmp_report(base.json miniapp 10 5.0 null OFF)
  cmp_report(tuned.json miniapp 10 4.0 "${cmp_tuned}" OFF)
  cmp_report(other.json heat 10 4.0 null OFF)
  cmp_report(longer.json miniapp 20 4.0 null ON)

  # Another application: refused in one line, exit status 2; --force compares with a warning.
  add_test(NAME compare_other_application COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo compare: 'other\\.json' is a run of 'heat' and 'base\\.json' of 'miniapp': their figures are not comparable \\(fix: compare runs of one application, or --force\\)\n$"
    -- ${cmp_cli} compare base.json other.json)
  add_test(NAME compare_other_application_forced COMMAND ${ERGO_EXPECT}
    "--match=^ergo compare: warning: 'other\\.json' is a run of 'heat' and 'base\\.json' of 'miniapp' \\(compared: --force\\)\nEnergy to solution \\[SIMULATED\\] of 2 runs"
    -- ${cmp_cli} compare --force base.json other.json)
  # Other step counts and other regions: one warning line each, then the table ('-' for D).
  add_test(NAME compare_other_steps_regions COMMAND ${ERGO_EXPECT}
    "--match=^ergo compare: warning: 'longer\\.json' ran 20 steps and 'base\\.json' 10: totals are not comparable, per-step figures are\nergo compare: warning: 'longer\\.json' and 'base\\.json' ran different regions: 1 only in the first \\(D\\), 0 only in the second \\(none\\); a missing region shows '-'\nEnergy to solution"
    "--match=\nD +base\\.json +- +- +- +-\n +longer\\.json +1\\.000 +100\\.00 +- +-\n$"
    -- ${cmp_cli} compare base.json longer.json)
  # The default table: depth 1 and 2, and C (depth 3) because a run tuned it, with its setting.
  add_test(NAME compare_default_tuned COMMAND ${ERGO_EXPECT}
    "--match=\nregion +run +time s +energy J +saving +time  setting applied\nA +base\\.json +5\\.000 +100\\.00 +ref +ref\n +tuned\\.json +4\\.000 +100\\.00 +0\\.00% +-20\\.00%\nA/B +base\\.json [^\n]*\n +tuned\\.json [^\n]*\nA/B/C +base\\.json +1\\.000 +100\\.00 +ref +ref\n +tuned\\.json +1\\.000 +100\\.00 +0\\.00% +\\+0\\.00%  core_khz=1800000 threads=8\n$"
    -- ${cmp_cli} compare base.json tuned.json)
  # --depth 1: only A; C, though tuned, is deeper.
  add_test(NAME compare_depth COMMAND ${ERGO_EXPECT}
    "--match=\nregion +run +time s +energy J +saving +time  setting applied\nA +base\\.json [^\n]*\n +tuned\\.json [^\n]*\n$"
    -- ${cmp_cli} compare --depth 1 base.json tuned.json)
  add_test(NAME compare_depth_bad COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo compare: --depth '0' is not valid: expected an integer from 1 \\(the children of Global\\) to 4096\n$"
    -- ${cmp_cli} compare --depth 0 base.json)
  # --json: one document with the runs (their facts and label) and the regions.
  add_test(NAME compare_json COMMAND ${ERGO_EXPECT}
    "--json=format=ergo-compare|reference=base.json|runs/1/run=tuned.json|runs/1/label=SIMULATED|runs/1/platform=sim|runs/1/facts/application=miniapp|runs/1/time_change_pct|regions/2/region=A/B/C|regions/2/depth=3|regions/2/runs/1/setting/core_khz=1800000|regions/2/runs/1/setting/threads=8|warnings"
    "--match=\"energy_saving_pct\": 0\\.0,\n"
    -- ${cmp_cli} compare --json base.json tuned.json)
  # CSV: every line says the run's platform and label, and the setting applied.
  add_test(NAME compare_csv_simulated COMMAND ${ERGO_EXPECT}
    "--match=^run,file,region,depth,time_s,energy_j,energy_saving_pct,time_change_pct,package-0_j,platform,label,setting\nbase\\.json,base\\.json,Global,0,10,100,0,0,100,sim,SIMULATED,\ntuned\\.json,tuned\\.json,Global,0,10,100,0,0,100,sim,SIMULATED,\n.*\ntuned\\.json,tuned\\.json,A/B/C,3,1,100,0,0,100,sim,SIMULATED,core_khz=1800000 threads=8\n$"
    -- ${cmp_cli} compare --csv base.json tuned.json)
  # Output that cannot be written (a full disk: /dev/full) is one line and exit status 1, in every
  # format: the table, --csv, --json.
  foreach(how table csv json)
    set(flag "")
    if(NOT how STREQUAL "table")
      set(flag "--${how}")
    endif()
    add_test(NAME compare_output_full_${how} COMMAND ${ERGO_EXPECT} --rc=1
      "--match=^ergo compare: cannot write the output to standard output: No space left on device \\(fix: free space where it goes, or redirect it to another file\\)\n$"
      -- sh -c "\"$0\" compare $1 base.json tuned.json > /dev/full" ${cmp_cli} "${flag}")
    list(APPEND cmp_full compare_output_full_${how})
  endforeach()
  # A directory is said to be one (it read as JSON cut short: "near end of file").
  add_test(NAME compare_directory COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo compare: '\\.': is not a regular file but a directory \\(fix: give the JSON reports ergo wrote\\)\n$"
    -- ${cmp_cli} compare base.json .)
  # An option of one value given twice is refused, not the last one silently taken.
  add_test(NAME compare_depth_twice COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo compare: --depth given twice \\('1', then '2'\\): expected it once\n$"
    -- ${cmp_cli} compare --depth 1 --depth=2 base.json)
  list(APPEND cmp_full compare_directory compare_depth_twice)
  set_tests_properties(compare_other_application compare_other_application_forced
    compare_other_steps_regions compare_default_tuned compare_depth compare_depth_bad compare_json
    compare_csv_simulated ${cmp_full} PROPERTIES WORKING_DIRECTORY ${cmp_dir})
endif()

# A real run on the sim node under the fixed policy: its report says how it was made, and the
# regions the tuner set carry the setting (ERGO_FIXED's values, never varied).
if(TARGET ergo-cli AND TARGET ergo-example-miniapp)
  add_test(NAME cli_tuning_provenance COMMAND ${ERGO_EXPECT}
    "--json=version=2|run/application=ergo-example-miniapp|run/ergo_version=${PROJECT_VERSION}|run/steps=3|run/platform=sim|run/policy=fixed|run/objective=energy@5%|run/energy=sim|run/host|run/date|threads/0/tree/children/0/name=Timestep|threads/0/tree/children/0/setting/core_khz=1500000|threads/0/tree/children/0/setting/threads=10|threads/0/tree/children/0/setting/varied=OFF"
    -- sh -c [=[
cli=$1 app=$2 dir=$3
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f fixed.json
ERGO_FIXED=cpu=1500000,threads=10 ERGO_REPORT=none ERGO_STATE_DIR="$dir/state" "$cli" run --platform sim --policy fixed --report-json fixed.json -- "$app" --steps 3 >/dev/null 2>&1 || { echo "FAIL: fixed run"; exit 1; }
cat fixed.json
]=] sh $<TARGET_FILE:ergo-cli> $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/provenance)
  set_tests_properties(cli_tuning_provenance PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:")
endif()

# The estimate meter on a real node: the platform is "estimate" (its figures are estimates), and
# the final text report ends with the same facts in its Run: line.
if(TARGET ergo-example-heat)
  add_test(NAME example_heat_provenance COMMAND ${ERGO_EXPECT}
    "--match=\nRun: ergo-example-heat, ergo ${PROJECT_VERSION}, host [^\n]+, 20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]+Z, 3 steps, platform estimate, policy monitor, energy estimate\n.*\"platform\": \"estimate\""
    -- sh -c [=[
dir=$2
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f r.json
ERGO_ENERGY=estimate ERGO_PLATFORM=real ERGO_REPORT=stdout ERGO_REPORT_JSON=r.json ERGO_STATE_DIR="$dir/state" "$1" --size 128 --steps 3 2>/dev/null || { echo "FAIL: heat"; exit 1; }
grep '"platform": "estimate"' r.json
]=] sh $<TARGET_FILE:ergo-example-heat> ${CMAKE_CURRENT_BINARY_DIR}/provenance_heat)
  set_tests_properties(example_heat_provenance PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:")
endif()
