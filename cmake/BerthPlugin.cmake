# berth_add_plugin(<id> SOURCES <files...> [MIGRATIONS <dir>] [LIBRARIES <libs...>] [OUTPUT_DIR <dir>]
#                  [PAYLOAD <dir>])
#
# Builds libberth_<id>.so as a MODULE library with hidden visibility, linked with -z defs (a
# plugin needs no symbol of berthd: it calls the core through the host table). SQL files
# <dir>/NNNN_name.sql are embedded into the library as a generated header
# "berth_migrations_<id>.inc" that defines kBerthMigrations[] = {{version, name, sql}, ...}.
# PAYLOAD: files the plugin finds at run time (an installer's InstallContext::payloadDir()),
# the way PostgreSQL finds an extension's files in share/extension: copied to
# <BERTH_SHARE_DIR>/templates/<id> when built, installed to share/berth/templates/<id>.
function(berth_add_plugin id)
  cmake_parse_arguments(P "" "MIGRATIONS;OUTPUT_DIR;PAYLOAD" "SOURCES;LIBRARIES" ${ARGN})
  set(target berth_plugin_${id})
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME berth_${id}
    PREFIX lib
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(P_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIR})
    set_property(GLOBAL APPEND PROPERTY BERTH_EXTRA_PLUGIN_TARGETS ${target})
  else()
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${BERTH_PLUGIN_DIR})
    set_property(GLOBAL APPEND PROPERTY BERTH_PLUGIN_TARGETS ${target})
    if(BERTH_IN_TREE)
      install(TARGETS ${target} LIBRARY DESTINATION ${BERTH_INSTALL_PLUGIN_DIR})
    else()
      # Built against the installed SDK: cmake --install puts it where an installed berthd
      # loads plugins from, <prefix>/lib/berth.
      include(GNUInstallDirs)
      install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/berth)
    endif()
  endif()
  # GCC's unique symbols would keep a plugin loaded after dlclose; clang makes none.
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
  if(NOT BERTH_SANITIZE)
    target_link_options(${target} PRIVATE -Wl,-z,defs)
  endif()
  target_link_libraries(${target} PRIVATE berth::sdk ${P_LIBRARIES})

  if(P_PAYLOAD)
    include(GNUInstallDirs)
    if(NOT DEFINED BERTH_SHARE_DIR)
      set(BERTH_SHARE_DIR ${CMAKE_BINARY_DIR}/share/berth)
    endif()
    set(payload_dest ${BERTH_SHARE_DIR}/templates/${id})
    file(GLOB_RECURSE payload_files CONFIGURE_DEPENDS ${P_PAYLOAD}/*)
    add_custom_command(
      OUTPUT ${payload_dest}/.berth-payload
      COMMAND ${CMAKE_COMMAND} -E rm -rf ${payload_dest}
      COMMAND ${CMAKE_COMMAND} -E copy_directory ${P_PAYLOAD} ${payload_dest}
      COMMAND ${CMAKE_COMMAND} -E touch ${payload_dest}/.berth-payload
      DEPENDS ${payload_files}
      VERBATIM)
    add_custom_target(${target}_payload DEPENDS ${payload_dest}/.berth-payload)
    add_dependencies(${target} ${target}_payload)
    install(DIRECTORY ${P_PAYLOAD}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/berth/templates/${id}
            USE_SOURCE_PERMISSIONS)
  endif()

  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/berth_gen_${id})
  set(inc ${gen_dir}/berth_migrations_${id}.inc)
  file(MAKE_DIRECTORY ${gen_dir})
  set(content "// Generated from ${P_MIGRATIONS}; do not edit.\n")
  string(APPEND content "struct BerthMigrationSource { unsigned version; const char* name; const char* sql; };\n")
  string(APPEND content "static const BerthMigrationSource kBerthMigrations[] = {\n")
  set(count 0)
  if(P_MIGRATIONS)
    file(GLOB sql_files CONFIGURE_DEPENDS ${P_MIGRATIONS}/*.sql)
    list(SORT sql_files)
    foreach(f ${sql_files})
      get_filename_component(base ${f} NAME_WE)
      string(REGEX MATCH "^([0-9]+)_(.+)$" m ${base})
      if(NOT m)
        message(FATAL_ERROR "migration ${f}: name must be NNNN_name.sql")
      endif()
      math(EXPR version "${CMAKE_MATCH_1}")
      set(mname ${CMAKE_MATCH_2})
      file(READ ${f} sql)
      # The SQL is pasted in at configure time: an edited migration must configure again.
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
      string(APPEND content "  {${version}u, \"${mname}\", R\"berth_sql(${sql})berth_sql\"},\n")
      math(EXPR count "${count} + 1")
    endforeach()
  endif()
  if(count EQUAL 0)
    string(APPEND content "  {0u, nullptr, nullptr},\n")
  endif()
  string(APPEND content "};\nstatic const unsigned kBerthMigrationCount = ${count};\n")
  file(GENERATE OUTPUT ${inc} CONTENT "${content}")
  target_include_directories(${target} PRIVATE ${gen_dir})
endfunction()

# berth_add_plugin_logic(<id> [LIBRARIES <libs...>])
#
# A plugin's logic, every src/*.cpp beside the calling CMakeLists.txt, as the static library
# berth_<id>_logic: linked into the plugin and into the unit tests of tests/<id> (which the
# tests' CMakeLists link automatically). Built position-independent with hidden visibility,
# like the plugin it goes into; src/ is its public include folder.
function(berth_add_plugin_logic id)
  cmake_parse_arguments(L "" "" "LIBRARIES" ${ARGN})
  set(target berth_${id}_logic)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  add_library(${target} STATIC ${sources})
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${target} PUBLIC ${L_LIBRARIES})
endfunction()
