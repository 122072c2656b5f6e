# browser.cmake - the headless-browser harness (tests/browser/browser.py) that the dashboard's and
# the HTML report's tests drive: a page's script runs, Chart.js draws from the embedded copy's
# source, and a page cannot reach the network.  Skipped (exit 77, with the reason) only where
# Chromium, ChromeDriver or selenium is absent; .ci/deps.sh installs them.  Debian's
# /usr/bin/python3 is the interpreter with python3-selenium, whatever python3 is first on PATH.
set(ERGO_BROWSER_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with selenium, for the browser tests")
if(ERGO_CHARTJS)
  add_test(NAME browser_harness COMMAND ${ERGO_EXPECT} "--match=browser harness: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/browser/selftest.py ${ERGO_CHARTJS})
  set_tests_properties(browser_harness PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
