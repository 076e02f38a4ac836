# Third-party dependencies: Debian packages (scripts/install_deps.sh) and ONNX Runtime
# (scripts/fetch_onnxruntime.sh, or an official release through ONNXRUNTIME_ROOT).
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Protobuf REQUIRED)
if(OGAI_BUILD_TESTS)  # the runtime alone (scripts/run.sh) needs neither
  find_package(GTest REQUIRED)
endif()
if(OGAI_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
find_package(ICU REQUIRED COMPONENTS uc i18n)

# Tokenizer: simdjson (fast JSON), PCRE2 (regex), utf8proc (normalization forms, graphemes),
# ICU (character properties, scripts). All Debian packages.
find_package(simdjson REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
find_package(ICU REQUIRED COMPONENTS uc)
add_library(tokenizer_deps INTERFACE)
target_link_libraries(tokenizer_deps INTERFACE simdjson::simdjson PkgConfig::PCRE2 PkgConfig::UTF8PROC ICU::uc
                      nlohmann_json::nlohmann_json)

# ONNX protobuf classes from Debian's libonnx-dev (schema 1.12; used only to parse text-format
# graphs, see src/onnx/textproto.h).
find_path(ONNX_PROTO_INCLUDE_DIR onnx/onnx-ml.pb.h REQUIRED)
find_library(ONNX_PROTO_LIBRARY onnx_proto REQUIRED)
add_library(onnx_proto_dep INTERFACE)
target_include_directories(onnx_proto_dep SYSTEM INTERFACE ${ONNX_PROTO_INCLUDE_DIR})
target_compile_definitions(onnx_proto_dep INTERFACE ONNX_ML=1 ONNX_NAMESPACE=onnx)
target_link_libraries(onnx_proto_dep INTERFACE ${ONNX_PROTO_LIBRARY} protobuf::libprotobuf)

if(NOT ONNXRUNTIME_ROOT AND DEFINED ENV{ONNXRUNTIME_ROOT})
  set(ONNXRUNTIME_ROOT "$ENV{ONNXRUNTIME_ROOT}")
endif()
if(NOT ONNXRUNTIME_ROOT)
  execute_process(COMMAND "${CMAKE_SOURCE_DIR}/scripts/fetch_onnxruntime.sh"
                  OUTPUT_VARIABLE ONNXRUNTIME_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE fetch_rc)
  if(NOT fetch_rc EQUAL 0)
    message(FATAL_ERROR "could not obtain ONNX Runtime (scripts/fetch_onnxruntime.sh); set ONNXRUNTIME_ROOT")
  endif()
endif()
set(ONNXRUNTIME_ROOT "${ONNXRUNTIME_ROOT}" CACHE PATH "ONNX Runtime root with include/ and lib/")
find_path(ONNXRUNTIME_INCLUDE_DIR onnxruntime_cxx_api.h PATHS "${ONNXRUNTIME_ROOT}/include"
          PATH_SUFFIXES onnxruntime NO_DEFAULT_PATH REQUIRED)
find_library(ONNXRUNTIME_LIBRARY NAMES onnxruntime PATHS "${ONNXRUNTIME_ROOT}/lib" NO_DEFAULT_PATH REQUIRED)
add_library(onnxruntime_dep INTERFACE)
target_include_directories(onnxruntime_dep SYSTEM INTERFACE ${ONNXRUNTIME_INCLUDE_DIR})
target_link_libraries(onnxruntime_dep INTERFACE ${ONNXRUNTIME_LIBRARY})
get_filename_component(ONNXRUNTIME_LIB_DIR "${ONNXRUNTIME_LIBRARY}" DIRECTORY)
set(CMAKE_BUILD_RPATH "${ONNXRUNTIME_LIB_DIR}")
set(CMAKE_INSTALL_RPATH "${ONNXRUNTIME_LIB_DIR}")
message(STATUS "ONNX Runtime: ${ONNXRUNTIME_ROOT}")
