# libogai: what an application outside this project links. One library holds the objects of the
# pipeline stages below serve and cli, and the C API:
# - ogai_shared -> libogai.so.<version>, soname libogai.so.<major>.<minor> (while the major version
#   is 0 a minor release may change the ABI). Built with hidden visibility: only what include/ogai/
#   marks OGAI_API is exported. It links the third-party shared libraries the stages use; ONNX
#   Runtime is found through the RUNPATH to the folder the build used (CMAKE_INSTALL_RPATH).
# - ogai_static -> libogai.a: the same objects in one archive, for static linking (the application
#   then links the third-party libraries itself: `pkg-config --static --libs ogai`).
set(OGAI_LIBRARY_STAGES ogai_base ogai_media ogai_onnx ogai_importer ogai_ort ogai_metadata ogai_chat ogai_sampling
                        ogai_kv ogai_tokenizer ogai_grammar ogai_workflow ogai_generate)

set(ogai_library_objects $<TARGET_OBJECTS:ogai_capi>)
foreach(stage IN LISTS OGAI_LIBRARY_STAGES)
  list(APPEND ogai_library_objects $<TARGET_OBJECTS:${stage}>)
endforeach()

# ogai_library(TARGET TYPE): the library of the objects above with the public include path and
# C++20 as usage requirements.
function(ogai_library target type)
  add_library(${target} ${type} ${ogai_library_objects})
  target_include_directories(${target} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_compile_features(${target} INTERFACE cxx_std_20)
endfunction()

ogai_library(ogai_shared SHARED)
set_target_properties(ogai_shared PROPERTIES
  OUTPUT_NAME ogai EXPORT_NAME ogai
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  # ONNX Runtime beside the library (the Python wheel's layout), in lib/ogai (an install, the
  # .deb: cmake/Install.cmake), else where the build found it.
  BUILD_RPATH "$ORIGIN;${ONNXRUNTIME_LIB_DIR}" INSTALL_RPATH "$ORIGIN;$ORIGIN/ogai;${ONNXRUNTIME_LIB_DIR}")
# The stages bring their third-party libraries (their own archives add nothing: every object is
# already in). --no-undefined: the library must be complete on its own. The version script exports
# the public API only (C functions ogai_*, the OGAI_API classes).
target_link_libraries(ogai_shared PRIVATE ${OGAI_LIBRARY_STAGES}
                      -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/libogai.map)
if(NOT OGAI_SANITIZE AND NOT OGAI_FUZZ)  # sanitizer runtimes leave their symbols to the executable
  target_link_options(ogai_shared PRIVATE -Wl,--no-undefined)
endif()
set_target_properties(ogai_shared PROPERTIES LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/libogai.map)

ogai_library(ogai_static STATIC)
set_target_properties(ogai_static PROPERTIES OUTPUT_NAME ogai EXPORT_NAME ogai_static)
