# dashboard.cmake - the live dashboard (ERGO_DASHBOARD, libergo-dashboard): its server's rules
# (token, limits, read-only, busy port) over HTTP, the page in headless Chromium steering the
# running tuner, and a run's files byte-identical with the dashboard on and off.
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp)
  set(ERGO_DASH_APP $<TARGET_FILE:ergo-example-miniapp>)
  add_test(NAME dashboard_http COMMAND ${ERGO_EXPECT} "--match=dashboard http: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/server_rules.py ${ERGO_DASH_APP}
    ${CMAKE_CURRENT_BINARY_DIR}/dashboard-http $<TARGET_FILE:ergo> $<TARGET_SONAME_FILE_NAME:ergo>)
  set_tests_properties(dashboard_http PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
endif()
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp)
  # The screenshots stay in the build tree (dashboard-*.png); docs/dashboard.png is one of them.
  add_test(NAME dashboard_browser COMMAND ${ERGO_EXPECT} "--match=dashboard steer: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/steer.py ${ERGO_DASH_APP}
    ${CMAKE_CURRENT_BINARY_DIR}/dashboard-browser)
  set(shots "")
  foreach(view global regions nodes knobs)
    list(APPEND shots ${CMAKE_CURRENT_BINARY_DIR}/dashboard-browser/dashboard-${view}-after.png)
  endforeach()
  set_tests_properties(dashboard_browser PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
    ATTACHED_FILES "${shots}")
endif()
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp)
  add_test(NAME dashboard_identical COMMAND ${ERGO_EXPECT} "--match=dashboard identical: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/identical.py ${ERGO_DASH_APP}
    ${CMAKE_CURRENT_BINARY_DIR}/dashboard-identical)
  set_tests_properties(dashboard_identical PROPERTIES TIMEOUT 180)
endif()
# bench/dashboard.sh's figures (never judged): its format, on two steps.
# Its runs do the mini-app's real OpenMP work, which ThreadSanitizer slows past minutes (the
# dashboard's threads are checked under TSan by dashboard_http, _browser, _identical and _mpi).
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp AND ERGO_BUILD_BENCH AND ERGO_SANITIZE MATCHES "thread")
  add_test(NAME bench_dashboard_format COMMAND sh -c "echo 'SKIPPED: the mini-app real OpenMP work takes minutes under ThreadSanitizer; the format is checked in the other builds'; exit 77")
  set_tests_properties(bench_dashboard_format PROPERTIES SKIP_RETURN_CODE 77)
elseif(TARGET ergo_dashboard AND TARGET ergo-example-miniapp AND ERGO_BUILD_BENCH)
  set(dn "[0-9]+\\.[0-9]+")
  add_test(NAME bench_dashboard_format COMMAND ${ERGO_EXPECT}
    "--match=dashboard overhead: ergo-example-miniapp, 2 steps of real work, online, estimate meter, least of 1 runs each\n"
    "--match=\nrun time: ${dn} s without the dashboard, ${dn} s with it \\([-+]${dn}%, machine noise included\\)\n"
    "--match=\nsnapshots: 3 published in ${dn} s of the main thread \\(${dn}% of the run\\); the client read [0-9]+ in all\n"
    "--match=\nergo's own time \\(hooks: meter readings, knob switches, tuning; plus publishing\\): ${dn} s = ${dn}% of the run with the dashboard, ${dn} s = ${dn}% without\n"
    -- bash ${PROJECT_SOURCE_DIR}/bench/dashboard.sh ${ERGO_DASH_APP} 2 1)
  set_tests_properties(bench_dashboard_format PROPERTIES TIMEOUT 120)
endif()
# Under MPI: rank 0 serves the whole job's nodes, a change reaches every rank.
if(TARGET ergo_dashboard AND TARGET ergo-example-miniapp AND ERGO_WITH_MPI)
  add_test(NAME dashboard_mpi COMMAND ${ERGO_EXPECT} "--match=dashboard mpi: OK" --
    ${ERGO_BROWSER_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/dashboard/mpi.py ${ERGO_DASH_APP}
    ${CMAKE_CURRENT_BINARY_DIR}/dashboard-mpi ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4
    --allow-run-as-root --oversubscribe ${MPIEXEC_PREFLAGS})
  set_tests_properties(dashboard_mpi PROPERTIES TIMEOUT 180 ENVIRONMENT "${ERGO_MPI_TEST_ENV}")
endif()
# Without libmicrohttpd or Chart.js there is no libergo-dashboard: its tests say so.
if(NOT TARGET ergo_dashboard)
  foreach(t dashboard_http dashboard_browser dashboard_identical dashboard_mpi)
    set(why "libergo-dashboard is not built (apt-get install libmicrohttpd-dev libjs-chart.js)")
    add_test(NAME ${t} COMMAND sh -c "echo 'SKIPPED: ${why}'; exit 77")
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endif()
