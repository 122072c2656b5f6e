# ergoPkgConfig.cmake - run by `cmake --install`: write ergo.pc for the prefix
# actually installed into (--prefix may differ from the configure-time one).
# In: ERGO_PC_IN, ERGO_PC_OUT, ERGO_PC_LIBDIR, ERGO_PC_INCLUDEDIR,
#     PROJECT_DESCRIPTION, PROJECT_VERSION, and CMAKE_INSTALL_PREFIX.
set(ERGO_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(NOT IS_ABSOLUTE "${ERGO_PC_${dir}}")
    set(ERGO_PC_${dir} "\${prefix}/${ERGO_PC_${dir}}")
  endif()
endforeach()
configure_file("${ERGO_PC_IN}" "${ERGO_PC_OUT}" @ONLY)
# ergo-static.pc beside it: the same, linking libergo.a by path.
string(REPLACE "ergo.pc.in" "ergo-static.pc.in" ERGO_PC_STATIC_IN "${ERGO_PC_IN}")
string(REPLACE "ergo.pc" "ergo-static.pc" ERGO_PC_STATIC_OUT "${ERGO_PC_OUT}")
configure_file("${ERGO_PC_STATIC_IN}" "${ERGO_PC_STATIC_OUT}" @ONLY)
# ergo-mpi.pc: libergo-mpi for MPI programs (built with MPI only).
if(ERGO_WITH_MPI)
  string(REPLACE "ergo.pc.in" "ergo-mpi.pc.in" ERGO_PC_MPI_IN "${ERGO_PC_IN}")
  string(REPLACE "ergo.pc" "ergo-mpi.pc" ERGO_PC_MPI_OUT "${ERGO_PC_OUT}")
  configure_file("${ERGO_PC_MPI_IN}" "${ERGO_PC_MPI_OUT}" @ONLY)
endif()
