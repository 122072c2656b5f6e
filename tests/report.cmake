# report.cmake - `ergo report` (tools/report.c): the runs it draws are made once (fixture
# report_runs: tests/tools/report_runs.sh, with `ergo run` on the sim node and one real run with
# the estimate meter); the HTML page driven in headless Chromium (tests/browser/report.py: every
# chart drawn, no console error, SIMULATED said, a screenshot of each section kept in
# build/tests/report/shots/); a chart as PNG and SVG (tests/browser/report_png.py); and each bad
# input refused in one line, with no output file left behind.
if(TARGET ergo-cli AND TARGET ergo-example-miniapp AND TARGET ergo-example-timers AND ERGO_CHARTJS
   AND ERGO_D3)
  set(rep_cli $<TARGET_FILE:ergo-cli>)
  set(rep_dir ${CMAKE_CURRENT_BINARY_DIR}/report)
  add_test(NAME report_runs COMMAND ${ERGO_EXPECT} "--match=report runs: OK" --
    sh ${CMAKE_CURRENT_SOURCE_DIR}/tools/report_runs.sh ${rep_cli}
    $<TARGET_FILE:ergo-example-miniapp> ${rep_dir} $<TARGET_FILE:ergo-example-timers>)
  set_tests_properties(report_runs PROPERTIES FIXTURES_SETUP report_runs TIMEOUT 120)

  add_test(NAME report_html_browser COMMAND ${ERGO_EXPECT} "--match=ergo report html: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/browser/report.py ${rep_cli} ${rep_dir})
  set_tests_properties(report_html_browser PROPERTIES FIXTURES_REQUIRED report_runs
    SKIP_RETURN_CODE 77 TIMEOUT 180)

  # Runs no meter measured (the sim node with ERGO_ENERGY=none): the model's energies are null
  # and the page says no energy was measured instead of drawing 0 J.
  add_test(NAME report_html_no_energy COMMAND ${ERGO_EXPECT} "--match=ergo report no energy: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/browser/report_no_energy.py ${rep_cli}
    $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/report-no-energy)
  set_tests_properties(report_html_no_energy PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)

  # One chart as a picture: PNG through Chromium's screenshot, SVG from d3's DOM.
  add_test(NAME report_png_svg COMMAND ${ERGO_EXPECT} "--match=ergo report png: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/browser/report_png.py ${rep_cli} ${rep_dir})
  set_tests_properties(report_png_svg PROPERTIES FIXTURES_REQUIRED report_runs
    SKIP_RETURN_CODE 77 TIMEOUT 180)

  # Bad inputs: one line naming the file, the value and the fix, exit status 1 (2 for usage),
  # and no out.html left behind (the wrapper says so when there is one).
  set(bad_dir ${CMAKE_CURRENT_BINARY_DIR}/report-bad)
  file(MAKE_DIRECTORY ${bad_dir})
  set(bad_run "{\"format\": \"ergo-report\", \"version\": 2, \"platform\": \"sim\", \"threads\": [{\"thread\": 0, \"tree\": {\"name\": \"Global\", \"path\": \"Global\", \"depth\": 0, \"time_s\": 1.0, \"children\": []}}]}\n")
  file(WRITE ${bad_dir}/run.json "${bad_run}")
  string(REPLACE "\"version\": 2" "\"version\": 9" bad_v9 "${bad_run}")
  file(WRITE ${bad_dir}/v9.json "${bad_v9}")
  file(WRITE ${bad_dir}/other.json "{\"format\": \"ergo-compare\", \"version\": 1}\n")
  file(WRITE ${bad_dir}/broken.json "{\"format\": \"ergo-report\", \"version\": 2,\n")
  file(WRITE ${bad_dir}/run.txt "miniapp: 100 steps, profile default\n")
  file(WRITE ${bad_dir}/model.json "{\"format\": \"ergo-model\", \"version\": 1, \"policy\": \"sweep\", \"objective\": \"energy\", \"node\": {\"platform\": \"sim\"}, \"regions\": {\"Global/A\": {\"config\": {\"threads\": \"x\"}, \"baseline\": {\"time_s\": 1, \"energy_j\": 1}, \"points\": []}}}\n")
  file(WRITE ${bad_dir}/power.csv "time_s,package-0_W\n0.1,12.5\n0.2,abc\n")
  file(WRITE ${bad_dir}/power-ok.csv "time_s,package-0_W\n0.1,12.5\n0.2,13.0\n")
  # A step of some time is 100 symbols (core/balance.c), one of no time none.
  string(REPEAT "A" 100 bal_a)
  file(WRITE ${bad_dir}/balance.txt "Headers for balance file:\n'A' - Timestep\n  Step=    1 sec=   1.00000     ${bal_a}\nhello\n")
  file(WRITE ${bad_dir}/balance-zero.txt "Headers for balance file:\n'A' - Timestep\n'?' - Unaccounted\n  Step=    1 sec=   1.00000     ${bal_a}\n  Step=    2 sec=   0.00000\n")
  # Cut short (a copy stopped midway): its last line has no newline, or a step too few symbols.
  string(SUBSTRING "${bal_a}" 0 91 bal_cut)
  file(WRITE ${bad_dir}/balance-cut.txt "Headers for balance file:\n'A' - Timestep\n  Step=    1 sec=   1.00000     ${bal_a}\n  Step=    2 sec=   1.00000     ${bal_cut}")
  file(WRITE ${bad_dir}/balance-short.txt "Headers for balance file:\n'A' - Timestep\n  Step=    1 sec=   1.00000     ${bal_cut}\n  Step=    2 sec=   1.00000     ${bal_a}\n")
  file(WRITE ${bad_dir}/power-cut.csv "time_s,package-0_W\n0.1,12.5\n0.2,1")
  # Runs of two applications (their run.application), as `ergo compare`'s tests have them.
  foreach(app miniapp heat)
    string(REPLACE "\"platform\": \"sim\", \"threads\"" "\"platform\": \"sim\", \"run\": {\"application\": \"${app}\", \"steps\": 1}, \"threads\"" app_run "${bad_run}")
    file(WRITE ${bad_dir}/app-${app}.json "${app_run}")
  endforeach()
  set(bad_sh [=[rm -f out.html; "$@"; rc=$?; if [ -e out.html ]; then echo "out.html was written"; fi; exit $rc]=])
  function(report_bad name rc re)
    add_test(NAME report_bad_${name} COMMAND ${ERGO_EXPECT} --rc=${rc} "--match=^${re}\n$" --
      sh -c "${bad_sh}" sh ${rep_cli} report --html out.html ${ARGN})
    set_tests_properties(report_bad_${name} PROPERTIES WORKING_DIRECTORY ${bad_dir})
  endfunction()
  report_bad(missing_file 1
    "ergo report: 'nothere\\.json' cannot be read: No such file or directory \\(fix: give the path of a file ergo wrote\\)"
    run.json nothere.json)
  report_bad(directory 1
    "ergo report: '\\.' is not a regular file but a directory \\(fix: give the path of a file ergo wrote\\)"
    run.json .)
  report_bad(not_ergo 1
    "ergo report: 'run\\.txt' is not a file ergo wrote: it starts with 'miniapp: 100 steps, pro', expected a JSON report \\(ERGO_REPORT_JSON\\), a model \\(ERGO_MODEL\\), a power CSV \\(ERGO_POWER_CSV\\) or a balance file \\(ERGO_BALANCE\\)"
    run.json run.txt)
  report_bad(other_format 1
    "ergo report: 'other\\.json' is not an ergo run or model: its format is 'ergo-compare', expected 'ergo-report' \\(ERGO_REPORT_JSON, ergo run --report-json\\), 'ergo-model' \\(ERGO_MODEL\\) or 'ergo-oracle' \\(ergo-example-miniapp --oracle --json\\)"
    run.json other.json)
  report_bad(wrong_version 1
    "ergo report: 'v9\\.json': is a report of another version: this ergo reads versions 1 and 2 \\(write the report again with it\\)"
    v9.json)
  report_bad(truncated 1
    "ergo report: 'broken\\.json' is not valid JSON: [^\n]* \\(line [0-9]+, column [0-9]+\\)"
    broken.json)
  report_bad(model 1
    "ergo report: tuning model 'model\\.json': regions\\[\"Global/A\"\\]\\.config\\.threads is not [^\n]*\\(fix: [^\n]*\\)"
    run.json model.json)
  report_bad(power_csv 1
    "ergo report: 'power\\.csv' line 3: '0\\.2,abc' is not 2 numbers \\(a power CSV as ERGO_POWER_CSV writes it: time_s and watts per domain; fix: give the sampler's file unedited\\)"
    run.json power.csv)
  report_bad(balance 1
    "ergo report: 'balance\\.txt' line 4: 'hello' is neither a header nor a step line of a balance file \\(fix: give the file ERGO_BALANCE wrote, unedited\\)"
    run.json balance.txt)
  report_bad(balance_truncated 1
    "ergo report: 'balance-cut\\.txt' line 4 ends without its newline: the file is truncated \\(fix: give the whole file ERGO_BALANCE wrote, once the run has ended\\)"
    run.json balance-cut.txt)
  report_bad(balance_short_step 1
    "ergo report: 'balance-short\\.txt' line 3: step 1 has 91 symbols, expected 100: the file is damaged \\(fix: give the file ERGO_BALANCE wrote, unedited\\)"
    run.json balance-short.txt)
  report_bad(power_truncated 1
    "ergo report: 'power-cut\\.csv' line 3 ends without its newline: the file is truncated \\(fix: give the whole file ERGO_POWER_CSV wrote, once the run has ended\\)"
    run.json power-cut.csv)
  # Runs of different programs are refused as `ergo compare` refuses them; --force draws them.
  report_bad(other_application 2
    "ergo report: 'app-heat\\.json' is a run of 'heat' and 'app-miniapp\\.json' of 'miniapp': their figures are not comparable \\(fix: draw runs of one application, or --force\\)"
    app-miniapp.json app-heat.json)
  add_test(NAME report_other_application_forced COMMAND ${ERGO_EXPECT}
    "--match=^ergo report: warning: 'app-heat\\.json' is a run of 'heat' and 'app-miniapp\\.json' of 'miniapp' \\(drawn together: --force\\)\nergo report: forced\\.html written \\(2 runs\\)\n$"
    -- ${rep_cli} report --html forced.html --force app-miniapp.json app-heat.json)
  set_tests_properties(report_other_application_forced PROPERTIES WORKING_DIRECTORY ${bad_dir})
  report_bad(repeated_option 2
    "ergo report: --chart given twice \\('tree', then 'power'\\): expected it once"
    --chart tree --chart power run.json)
  report_bad(no_run 2
    "ergo report: no run among the files: expected at least one JSON report \\(ERGO_REPORT_JSON, ergo run --report-json\\)"
    power-ok.csv)
  add_test(NAME report_bad_unwritable COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo: error: cannot write '/nonexistent/out\\.html': No such file or directory \\(fix: [^\n]*\\)\n$"
    -- ${rep_cli} report --html /nonexistent/out.html ${bad_dir}/run.json)
  # A step of no time has no symbols in its balance line (core/balance.c): still a step line.
  add_test(NAME report_balance_zero_time_step COMMAND ${ERGO_EXPECT}
    "--match=^ergo report: zero\\.html written \\(1 run, balance lines\\)\n$" --
    ${rep_cli} report --html zero.html run.json balance-zero.txt)
  set_tests_properties(report_balance_zero_time_step PROPERTIES WORKING_DIRECTORY ${bad_dir})
  # A region's name is data, never markup: no '<' of the data reaches the page as a tag or comment.
  string(REPLACE "\"name\": \"Global\"" "\"name\": \"<!--<script>x</script>\"" esc_run "${bad_run}")
  file(WRITE ${bad_dir}/markup.json "${esc_run}")
  add_test(NAME report_html_data_escaped COMMAND ${ERGO_EXPECT} "--match=^ergo report: esc\\.html written \\(1 run\\)\nno markup from the data\n$" --
    sh -c "${rep_cli} report --html esc.html markup.json && ! grep -F -e '<!--<script>x' esc.html && echo 'no markup from the data'")
  set_tests_properties(report_html_data_escaped PROPERTIES WORKING_DIRECTORY ${bad_dir})

  # The mini-app's --json is --oracle's form, alone a usage error.
  add_test(NAME report_miniapp_json_alone COMMAND ${ERGO_EXPECT} --rc=2
    "--match=: --json goes with --oracle \\(see --help\\)\n$"
    -- $<TARGET_FILE:ergo-example-miniapp> --json)

  # No Chromium: --png says so in one line (and names --html, which needs none).
  add_test(NAME report_png_no_chromium COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo report: no Chromium to render the picture with: none of chromium, chromium-browser, google-chrome is on PATH \\(fix: apt-get install chromium, or --chromium PATH; --html writes the page without one\\)\n$"
    -- ${CMAKE_COMMAND} -E env PATH=/nonexistent ${rep_cli} report --png out.png ${bad_dir}/run.json)
  add_test(NAME report_png_bad_chromium COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo report: --chromium '/nonexistent/chromium' cannot be run: No such file or directory \\(fix: the path of chromium\\)\n$"
    -- ${rep_cli} report --png out.png --chromium /nonexistent/chromium ${bad_dir}/run.json)
  # A --chromium that is a directory, or that the kernel cannot start (its interpreter is
  # missing): "cannot be run", not "failed to render the picture (exit status 127)".
  add_test(NAME report_png_chromium_directory COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo report: --chromium '/' cannot be run: it is a directory \\(fix: the path of chromium\\)\n$"
    -- ${rep_cli} report --png out.png --chromium / ${bad_dir}/run.json)
  add_test(NAME report_png_chromium_no_interpreter COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo report: '[^\n]*/no-interpreter' cannot be run: No such file or directory \\(fix: --chromium and the path of a working chromium\\)\n$"
    -- sh -c "printf '#!/nonexistent/sh\\n' > \"$0/no-interpreter\" && chmod +x \"$0/no-interpreter\" && exec \"$1\" report --png \"$0/out.png\" --chromium \"$0/no-interpreter\" \"$0/run.json\""
    ${bad_dir} ${rep_cli})
  # --svg of a Chart.js canvas is refused with the fix.
  add_test(NAME report_svg_canvas COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo report: --svg draws the d3 charts \\(tree, balance\\); 'power' is a Chart\\.js canvas, which has no SVG \\(fix: --png\\)\n$"
    -- ${rep_cli} report --svg out.svg --chart power ${bad_dir}/run.json ${bad_dir}/power-ok.csv)
endif()
