# Precompiled headers for Berth's own libraries and plugins. Nearly every source includes
# nlohmann-json (through the SDK's service headers) and the same standard headers: parsed once
# per target instead of once per file, they take about 3 of the 7 to 8 seconds a typical file
# costs (measured on the CI's kind of 2-core machine), and CI compiles everything twice.
# The tests have their own (tests/CMakeLists.txt). Out-of-tree plugins are left alone.
set(BERTH_COMMON_PCH_HEADERS
  <nlohmann/json.hpp> <algorithm> <chrono> <cstdint> <filesystem> <functional> <map> <memory>
  <mutex> <optional> <set> <string> <string_view> <unordered_map> <utility> <vector>)

# A precompiled header costs about one file's compile; below this many sources it does not pay.
set(BERTH_PCH_MIN_SOURCES 4)

function(berth_precompile_target target)
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  list(LENGTH sources count)
  if(count LESS BERTH_PCH_MIN_SOURCES)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${BERTH_COMMON_PCH_HEADERS})
endfunction()

# Every target defined under these folders (recursively) with enough sources.
function(berth_precompile_folders)
  foreach(folder ${ARGN})
    get_property(targets DIRECTORY ${folder} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target ${targets})
      berth_precompile_target(${target})
    endforeach()
    get_property(children DIRECTORY ${folder} PROPERTY SUBDIRECTORIES)
    if(children)
      berth_precompile_folders(${children})
    endif()
  endforeach()
endfunction()
