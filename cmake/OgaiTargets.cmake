# ogai_stage(NAME SOURCES ... DEPS ...): one static library per pipeline stage, named ogai_<NAME>,
# with an explicit source list and declared dependencies. Every stage sees include/ (public API)
# and src/ (so includes read "base/error.h", "onnx/graph_info.h", ...).
function(ogai_stage name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(ogai_${name} STATIC ${ARG_SOURCES})
  target_include_directories(ogai_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src
                                                 ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(ogai_${name} PUBLIC ${ARG_DEPS})
endfunction()

# ogai_test(NAME SOURCES ... DEPS ... [LABELS ...]): one GoogleTest binary registered with CTest.
# Tests get OGAI_SHARED_DIR, OGAI_SOURCE_DIR and OGAI_BINARY_DIR as string macros.
function(ogai_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE OGAI_SHARED_DIR="${OGAI_SHARED_DIR}"
                             OGAI_SOURCE_DIR="${PROJECT_SOURCE_DIR}" OGAI_BINARY_DIR="${PROJECT_BINARY_DIR}")
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()
