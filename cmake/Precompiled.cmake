# Precompiled headers for the unity build (scripts/run.sh's first build, OGAI_UNITY_BUILD):
# the standard library, {fmt} and nlohmann/json, which nearly every batch includes, are parsed
# once into ogai_base's precompiled header and every other stage library loads it instead of
# parsing them again (REUSE_FROM: same compiler flags, -fPIC). The ogai executable is compiled
# with -fPIE, which a -fPIC header does not serve, so it gets its own. Heavier headers used by one
# or two batches (Boost.Beast, ONNX Runtime's C++ API, CLI11) stay out: loading a bigger header in
# every batch would cost more than it saves. Test, benchmark and fuzz targets get none. A header
# the compiler cannot use is parsed as text (slower, not wrong): CMake adds -Winvalid-pch, so the
# build log says so.
# With ccache as the launcher (OGAI_CCACHE), these targets' launcher gets the sloppiness ccache
# needs to cache compiles that use a precompiled header (pch_defines, time_macros; no source uses
# __DATE__ or __TIME__) and -fpch-preprocess, so a rebuild of the folder still hits the cache.
option(OGAI_PRECOMPILED_HEADERS "Precompiled headers for the stages and the ogai executable"
       ${OGAI_UNITY_BUILD})
set(OGAI_PRECOMPILED
    <algorithm> <array> <atomic> <chrono> <cmath> <cstddef> <cstdint> <cstdio> <cstring> <filesystem>
    <functional> <limits> <map> <memory> <mutex> <optional> <set> <span> <string> <string_view>
    <unordered_map> <utility> <vector> <fmt/format.h> <nlohmann/json.hpp>)

# ogai_precompiled_headers(TARGET): TARGET uses the precompiled header (ogai_base builds it; an
# executable builds its own).
function(ogai_precompiled_headers target)
  if(NOT OGAI_PRECOMPILED_HEADERS)
    return()
  endif()
  get_target_property(type ${target} TYPE)
  if(target STREQUAL "ogai_base" OR type STREQUAL "EXECUTABLE")
    target_precompile_headers(${target} PRIVATE ${OGAI_PRECOMPILED})
  else()
    target_precompile_headers(${target} REUSE_FROM ogai_base)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # g++ 12 inlines these larger translation units differently and then reports libstdc++'s
    # std::string concatenation as out of bounds (false positives, as -Wrestrict in the top
    # CMakeLists.txt); the file-by-file builds (CI, the tests' folders) keep both warnings on.
    target_compile_options(${target} PRIVATE -Wno-stringop-overflow -Wno-array-bounds)
  endif()
  get_target_property(launcher ${target} CXX_COMPILER_LAUNCHER)
  if(launcher MATCHES "ccache")
    list(FIND launcher env at)  # OGAI_CCACHE's launcher: cmake -E env VAR=VALUE ... ccache
    if(at GREATER_EQUAL 0)
      math(EXPR at "${at} + 1")
      list(INSERT launcher ${at} CCACHE_SLOPPINESS=pch_defines,time_macros)
    else()
      set(launcher ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros ${launcher})
    endif()
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
    target_compile_options(${target} PRIVATE -fpch-preprocess)
  endif()
endfunction()
