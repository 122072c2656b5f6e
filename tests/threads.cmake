# test_threads runs real OpenMP parallel regions: it needs the compiler's OpenMP flags, not
# only libgomp at link time (which it gets through ergo_static).
if(TARGET test_threads)
  target_link_libraries(test_threads PRIVATE OpenMP::OpenMP_C)
endif()
if(TARGET test_settings)
  target_link_libraries(test_settings PRIVATE OpenMP::OpenMP_C)
endif()
