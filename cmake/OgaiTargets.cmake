# ogai_stage(NAME SOURCES ... DEPS ...): one static library per pipeline stage, named ogai_<NAME>,
# with an explicit source list and declared dependencies. Every stage sees include/ (public API)
# (with the generated include/ogai/version.h) and src/ (so includes read "base/error.h", ...).
function(ogai_stage name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(ogai_${name} STATIC ${ARG_SOURCES})
  target_include_directories(ogai_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src
                                                 ${PROJECT_BINARY_DIR}/generated ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(ogai_${name} PUBLIC ${ARG_DEPS})
  set_target_properties(ogai_${name} PROPERTIES UNITY_BUILD ${OGAI_UNITY_BUILD})
  ogai_precompiled_headers(ogai_${name})  # cmake/Precompiled.cmake
  # cmake/Unity.cmake, at the end of the folder's CMakeLists.txt: sources added later count too.
  # (A deferred call reads its arguments' variables when it runs: the name is spelled out now.)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL ogai_unity_exclusions ogai_${name})")
endfunction()

# ogai_test(NAME SOURCES ... DEPS ... [LABELS ...]): one GoogleTest binary registered with CTest.
# Tests get OGAI_SHARED_DIR, OGAI_SOURCE_DIR and OGAI_BINARY_DIR as macros read from the environment
# CTest sets (tests/support/test_dirs.h), so their objects do not depend on the checkout's path.
function(ogai_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_options(${name} PRIVATE -include ${PROJECT_SOURCE_DIR}/tests/support/test_dirs.h)
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT
                       "OGAI_SHARED_DIR=${OGAI_SHARED_DIR};OGAI_SOURCE_DIR=${PROJECT_SOURCE_DIR};OGAI_BINARY_DIR=${PROJECT_BINARY_DIR}")
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

# ogai_node_test(NAME SCRIPT [ARGS ...]): a Node.js script (CommonJS, using tests/peers/peers.cjs
# for npm peers) registered with CTest. ARGS may use generator expressions, e.g. $<TARGET_FILE:ogai>.
function(ogai_node_test name script)
  add_test(NAME ${name} COMMAND ${PROJECT_SOURCE_DIR}/tests/peers/run_node.sh
           ${PROJECT_SOURCE_DIR}/${script} ${ARGN} WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "peer"
                       ENVIRONMENT "OGAI_SHARED_DIR=${OGAI_SHARED_DIR};OGAI_SOURCE_DIR=${PROJECT_SOURCE_DIR};OGAI_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()

# ogai_python_test(NAME SCRIPT [ARGS ...]): a script run with Debian's /usr/bin/python3 (which has
# python3-onnx and python3-numpy), registered with CTest.
function(ogai_python_test name script)
  add_test(NAME ${name} COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/${script} ${ARGN}
           WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "python"
                       ENVIRONMENT "OGAI_SHARED_DIR=${OGAI_SHARED_DIR};OGAI_SOURCE_DIR=${PROJECT_SOURCE_DIR};OGAI_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()
