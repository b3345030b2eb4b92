# The fuzz targets' replay programs (cmake/BerthFuzz.cmake): each target over its seed corpus
# and its kept crashes, as an ordinary unit test.
include(${PROJECT_SOURCE_DIR}/cmake/BerthFuzz.cmake)
berth_add_fuzz_targets()
