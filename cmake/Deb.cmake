# A Debian package of what `cmake --install` installs (cmake/Install.cmake), under /usr:
#   cpack -G DEB --config build/CPackConfig.cmake   -> ogai_<version>_<arch>.deb
# bin/ogai, libogai (shared and static), the headers, the CMake package and pkg-config files, the
# Python package (when built), the ONNX Runtime libraries in /usr/lib/ogai, and LICENSE and NOTICE
# in /usr/share/doc/ogai. Its Depends line comes from dpkg-shlibdeps (the Debian libraries the
# binaries load); ctest's deb_package_test builds it and checks it (tests/install/deb_test.py).
# cpack packs what is built: its "preinstall" step then builds nothing (else it builds `all`,
# tests and benchmarks included). `cmake --install` never builds either way.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ogai)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the ogai authors")
set(CPACK_PACKAGE_CONTACT "the ogai authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Runtime for ONNX generative-AI model packages (inference_metadata.yaml)")
set(CPACK_PACKAGE_DESCRIPTION "ogai runs onnx-genai v1 model packages on ONNX Runtime: the ogai command line (generate, chat, serve) and libogai with its C++ and C APIs.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/dist)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${ONNXRUNTIME_LIB_DIR})  # the bundled ONNX Runtime
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
include(CPack)
