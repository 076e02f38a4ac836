# `cmake --install build --prefix P` puts into P:
#   include/ogai/*.h                  the public C++ and C headers (with the generated version.h)
#   lib/libogai.so*, lib/libogai.a    the library (cmake/Library.cmake)
#   bin/ogai                          the command line
#   lib/cmake/ogai/                   find_package(ogai CONFIG): ogai::ogai (shared), ogai::ogai_static
#   lib/pkgconfig/ogai.pc             pkg-config --cflags --libs ogai (C; C++ adds -std=c++20)
#   lib/pkgconfig/ogai-cxx.pc         pkg-config --cflags --libs ogai-cxx (C++: ogai.pc + -std=c++20)
#   lib/ogai/libonnxruntime*.so*      the ONNX Runtime libraries of this build (a private folder)
#   share/doc/ogai/LICENSE, NOTICE    ogai's licence and the third-party libraries' (NOTICE)
# Installed binaries find ONNX Runtime in lib/ogai through a RUNPATH relative to themselves
# ($ORIGIN/ogai, $ORIGIN/../lib/ogai), then in the lib folder of this build (${ONNXRUNTIME_LIB_DIR}),
# so the install (and the .deb of cmake/Deb.cmake) runs on a machine without that folder.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ogai DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/ogai/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ogai)
install(TARGETS ogai_shared ogai_static EXPORT ogaiTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ogai RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(RELATIVE_PATH ogai_bin_to_lib /p/${CMAKE_INSTALL_BINDIR} /p/${CMAKE_INSTALL_LIBDIR})
set_target_properties(ogai PROPERTIES INSTALL_RPATH "$ORIGIN/${ogai_bin_to_lib}/ogai;${ONNXRUNTIME_LIB_DIR}")
# The ONNX Runtime libraries the build links (with the providers of a GPU release beside them),
# symbolic links kept.
file(GLOB ogai_onnxruntime_libs ${ONNXRUNTIME_LIB_DIR}/libonnxruntime*.so*)
install(FILES ${ogai_onnxruntime_libs} DESTINATION ${CMAKE_INSTALL_LIBDIR}/ogai)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(ogai_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ogai)
install(EXPORT ogaiTargets NAMESPACE ogai:: DESTINATION ${ogai_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ogaiConfig.cmake.in
  ${PROJECT_BINARY_DIR}/install/ogaiConfig.cmake INSTALL_DESTINATION ${ogai_cmake_dir})
# 0.x: a minor release may break compatibility, so only the same major.minor satisfies a request.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/ogaiConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/ogaiConfig.cmake ${PROJECT_BINARY_DIR}/install/ogaiConfigVersion.cmake
        DESTINATION ${ogai_cmake_dir})

# ogai.pc: Libs.private lists what a static link needs beside libogai.a.
set(OGAI_PC_LIBS_PRIVATE "-Wl,-rpath,${ONNXRUNTIME_LIB_DIR} -L${ONNXRUNTIME_LIB_DIR} -lonnxruntime -lonnx_proto -lprotobuf -lyaml-cpp -lfmt -lsimdjson -lpcre2-8 -lutf8proc -lpng16 -ljpeg -lwebpdemux -lwebp -lgif -lexif -lstb -lsndfile -lvorbisfile -lsoxr -lkissfft-float -licui18n -licuuc -licudata -lstdc++ -lm -lpthread")
file(RELATIVE_PATH OGAI_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ogai.pc.in ${PROJECT_BINARY_DIR}/install/ogai.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ogai-cxx.pc.in ${PROJECT_BINARY_DIR}/install/ogai-cxx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/install/ogai.pc ${PROJECT_BINARY_DIR}/install/ogai-cxx.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
