# berth_fuzz_target(<name> SOURCE <file> [LINK <targets...>] [EXTRA_SOURCES <files...>])
#
# One libFuzzer target per parser (tests/fuzz/<name>_fuzz.cpp, which defines
# LLVMFuzzerTestOneInput). It is built two ways:
# - in a fuzzing build (BERTH_FUZZ=ON, Debian's clang; scripts/fuzz.sh) as the fuzzer
#   fuzz_<name>, with libFuzzer, ASan and UBSan, part of the target berth_fuzzers;
# - in the ordinary builds as fuzz_<name>_replay, which runs the target once over its seed
#   corpus and every input a fuzzer ever found (tests/fuzz/regressions/<name>), registered
#   with ctest as fuzz/<name> (label fuzz): a crash found once stays a regression test, under
#   GCC's sanitizers too.
function(berth_fuzz_target name)
  cmake_parse_arguments(F "" "SOURCE" "LINK;EXTRA_SOURCES" ${ARGN})
  set(fuzz_dir ${PROJECT_SOURCE_DIR}/tests/fuzz)
  if(BERTH_FUZZ)
    set(target fuzz_${name})
    add_executable(${target} ${F_SOURCE} ${F_EXTRA_SOURCES})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
    add_dependencies(berth_fuzzers ${target})
  else()
    set(target fuzz_${name}_replay)
    add_executable(${target} ${F_SOURCE} ${F_EXTRA_SOURCES} ${fuzz_dir}/support/replay_main.cpp)
    add_test(NAME fuzz/${name}
             COMMAND ${target} ${fuzz_dir}/corpus/${name} ${fuzz_dir}/regressions/${name})
    set_tests_properties(fuzz/${name} PROPERTIES LABELS fuzz TIMEOUT 300)
  endif()
  target_include_directories(${target} PRIVATE ${fuzz_dir} ${PROJECT_SOURCE_DIR}/core/src)
  target_link_libraries(${target} PRIVATE berth::sdk ${F_LINK})
endfunction()

# Every tests/fuzz/<name>_fuzz.cpp is a target. Its first lines say what it needs:
#   // fuzz-link: berth_scheduler_logic            (CMake targets or libraries)
#   // fuzz-sources: core/src/config/settings.cpp  (extra sources, from the project's root)
function(berth_add_fuzz_targets)
  file(GLOB fuzz_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz/*_fuzz.cpp)
  foreach(source ${fuzz_sources})
    get_filename_component(file_name ${source} NAME_WE)
    string(REGEX REPLACE "_fuzz$" "" name ${file_name})
    file(STRINGS ${source} link_lines REGEX "^// fuzz-link: ")
    file(STRINGS ${source} source_lines REGEX "^// fuzz-sources: ")
    set(link "")
    foreach(line ${link_lines})
      string(REGEX REPLACE "^// fuzz-link: " "" items "${line}")
      separate_arguments(items UNIX_COMMAND "${items}")
      list(APPEND link ${items})
    endforeach()
    set(extra "")
    foreach(line ${source_lines})
      string(REGEX REPLACE "^// fuzz-sources: " "" items "${line}")
      separate_arguments(items UNIX_COMMAND "${items}")
      foreach(item ${items})
        list(APPEND extra ${PROJECT_SOURCE_DIR}/${item})
      endforeach()
    endforeach()
    berth_fuzz_target(${name} SOURCE ${source} LINK ${link} EXTRA_SOURCES ${extra})
  endforeach()
endfunction()
