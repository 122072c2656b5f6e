# dashboard.cmake - the live dashboard (ERGO_DASHBOARD, libergo-dashboard): its server's rules
# (token, limits, read-only, busy port) over HTTP, the page in headless Chromium steering the
# running tuner, and a run's files byte-identical with the dashboard on and off.
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp)
  set(ERGO_DASH_APP $<TARGET_FILE:ergo-example-miniapp>)
  add_test(NAME dashboard_http COMMAND ${ERGO_EXPECT} "--match=dashboard http: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/server_rules.py ${ERGO_DASH_APP}
    ${CMAKE_CURRENT_BINARY_DIR}/dashboard-http)
  set_tests_properties(dashboard_http PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
endif()
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp)
  # The screenshots stay in the build tree (dashboard-*.png); docs/dashboard.png is one of them.
  add_test(NAME dashboard_browser COMMAND ${ERGO_EXPECT} "--match=dashboard steer: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/steer.py ${ERGO_DASH_APP}
    ${CMAKE_CURRENT_BINARY_DIR}/dashboard-browser)
  set_tests_properties(dashboard_browser PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
