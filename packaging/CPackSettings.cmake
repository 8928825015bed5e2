# The Debian package. Included at the end of the top-level CMakeLists.txt, after every install()
# rule; `cpack -G DEB` in a build folder then writes gguf-explorer_<version>_<arch>.deb, which
# installs under /usr. The version is the top-level project(VERSION).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gguf-explorer)
set(CPACK_PACKAGE_VENDOR "GGUF Explorer developers")
set(CPACK_PACKAGE_CONTACT "GGUF Explorer developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "explorer for GGUF model files (llama.cpp)")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "GGUF Explorer opens GGUF files, the model format of llama.cpp, from small test models to split\n"
    "mixture-of-experts models of hundreds of gigabytes, without reading the weights up front. It\n"
    "shows the metadata and tokenizer, every tensor with its type, shape and size, and the\n"
    "dequantized weights, bit for bit as ggml computes them, for every ggml type.\n"
    ".\n"
    "This package holds the desktop application (gguf-explorer), the command-line tool\n"
    "(gguf-explorer-cli) and a small sample model.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "GGUF Explorer developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Libraries the binaries link come from dpkg-shlibdeps (package dpkg-dev); what is only loaded at
# run time is named here: Qt's platform plugins (xcb, offscreen, ...).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(GGUFX_BUILD_GUI)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS qt6-qpa-plugins)
endif()

# The CLI loads libcurl and OpenBLAS with dlopen on first use (app/cli/LazyLibraries.cpp), so
# dpkg-shlibdeps cannot see them in it (the GUI still links them): name them.
if(CPACK_DEBIAN_PACKAGE_DEPENDS)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, libcurl4, libopenblas0")
else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4, libopenblas0")
endif()

include(CPack)
