# find_package(BerthSdk): the installed SDK. Gives the target berth::sdk (the headers, with
# nlohmann-json) and berth_add_plugin() (cmake/BerthPlugin.cmake), which builds
# libberth_<id>.so for berthd's plugins.dir.
include(CMakeFindDependencyMacro)
find_dependency(nlohmann_json 3.11)
include(${CMAKE_CURRENT_LIST_DIR}/BerthSdkTargets.cmake)
if(NOT DEFINED BERTH_PLUGIN_DIR)
  set(BERTH_PLUGIN_DIR ${CMAKE_BINARY_DIR}/lib/berth)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/BerthPlugin.cmake)
