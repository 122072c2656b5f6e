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
