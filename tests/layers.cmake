# layers.cmake - the layering rule on the includes (tests/support/check_layers.sh says which).
add_test(NAME layers_point_down
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/support/check_layers.sh ${PROJECT_SOURCE_DIR})
