# report.cmake - `ergo report` (tools/report.c): the runs it draws are made once (fixture
# report_runs: tests/tools/report_runs.sh, with `ergo run` on the sim node and one real run with
# the estimate meter); the HTML page driven in headless Chromium (tests/browser/report.py: every
# chart drawn, no console error, SIMULATED said, a screenshot of each section kept in
# build/tests/report/shots/); a chart as PNG and SVG (tests/browser/report_png.py); and each bad
# input refused in one line, with no output file left behind.
if(TARGET ergo-cli AND TARGET ergo-example-miniapp AND ERGO_CHARTJS AND ERGO_D3)
  set(rep_cli $<TARGET_FILE:ergo-cli>)
  set(rep_dir ${CMAKE_CURRENT_BINARY_DIR}/report)
  add_test(NAME report_runs COMMAND ${ERGO_EXPECT} "--match=report runs: OK" --
    sh ${CMAKE_CURRENT_SOURCE_DIR}/tools/report_runs.sh ${rep_cli}
    $<TARGET_FILE:ergo-example-miniapp> ${rep_dir})
  set_tests_properties(report_runs PROPERTIES FIXTURES_SETUP report_runs TIMEOUT 120)

  add_test(NAME report_html_browser COMMAND ${ERGO_EXPECT} "--match=ergo report html: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/browser/report.py ${rep_cli} ${rep_dir})
  set_tests_properties(report_html_browser PROPERTIES FIXTURES_REQUIRED report_runs
    SKIP_RETURN_CODE 77 TIMEOUT 180)
endif()
