# Install rules and the CMake package: find_package(Kaio) against an install
# (cmake --install). Three export sets, so that a consumer of the runtime
# alone needs no LLVM/MLIR at configure time:
#   KaioRuntimeTargets  Kaio::KaioRuntime (CUDA driver API; no LLVM/MLIR)
#   KaioToolsTargets    Kaio::kaio-opt, kaio-translate, kaio-run(-ptx),
#                       kaio-embed (imported executables)
#   KaioCompilerTargets the dialect, pass, pipeline, printer, builder and
#                       compile-API libraries (link the shared MLIR/LLVM;
#                       KaioConfig loads them only with MLIR found)
# Included last from the top-level CMakeLists.txt, after every target exists.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(KAIO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kaio)

# Runtime.
target_include_directories(KaioRuntime INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS KaioRuntime EXPORT KaioRuntimeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${KAIO_SOURCE_DIR}/include/Kaio/Runtime
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/Kaio FILES_MATCHING PATTERN "*.h")
install(EXPORT KaioRuntimeTargets NAMESPACE Kaio::
  DESTINATION ${KAIO_INSTALL_CMAKEDIR})

# Tools.
set(KAIO_INSTALL_TOOLS)
foreach(tool kaio-opt kaio-translate kaio-run kaio-run-ptx kaio-embed)
  if(TARGET ${tool})
    list(APPEND KAIO_INSTALL_TOOLS ${tool})
  endif()
endforeach()
if(KAIO_ENABLE_COMPILER)
  # The tools find the shared MLIR/LLVM where the build found them.
  foreach(tool ${KAIO_INSTALL_TOOLS})
    set_property(TARGET ${tool} APPEND PROPERTY INSTALL_RPATH
      "${LLVM_LIBRARY_DIR}")
  endforeach()
endif()
install(TARGETS ${KAIO_INSTALL_TOOLS} EXPORT KaioToolsTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT KaioToolsTargets NAMESPACE Kaio::
  DESTINATION ${KAIO_INSTALL_CMAKEDIR})

# Compiler libraries: every add_mlir_library of the project.
if(KAIO_ENABLE_COMPILER)
  get_property(KAIO_COMPILER_LIBS GLOBAL PROPERTY MLIR_EXPORTS)
  foreach(lib ${KAIO_COMPILER_LIBS})
    target_include_directories(${lib} INTERFACE
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endforeach()
  install(TARGETS ${KAIO_COMPILER_LIBS} EXPORT KaioCompilerTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT KaioCompilerTargets NAMESPACE Kaio::
    DESTINATION ${KAIO_INSTALL_CMAKEDIR})
  install(DIRECTORY ${KAIO_SOURCE_DIR}/include/Kaio
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td" PATTERN "Runtime" EXCLUDE)
  install(DIRECTORY ${KAIO_BINARY_DIR}/include/Kaio
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h.inc" PATTERN "CMakeFiles" EXCLUDE)
endif()

set(KAIO_CONFIG_MLIR_DIR "${MLIR_DIR}")
set(KAIO_CONFIG_COMPILER_LIBS "${KAIO_COMPILER_LIBS}")
configure_package_config_file(${KAIO_SOURCE_DIR}/cmake/KaioConfig.cmake.in
  ${KAIO_BINARY_DIR}/cmake/KaioConfig.cmake
  INSTALL_DESTINATION ${KAIO_INSTALL_CMAKEDIR})
write_basic_package_version_file(${KAIO_BINARY_DIR}/cmake/KaioConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${KAIO_BINARY_DIR}/cmake/KaioConfig.cmake
  ${KAIO_BINARY_DIR}/cmake/KaioConfigVersion.cmake
  ${KAIO_SOURCE_DIR}/cmake/KaioKernels.cmake
  DESTINATION ${KAIO_INSTALL_CMAKEDIR})

# The C API (libkaio.so, libkaio_compiler.so, include/kaio/kaio.h) and the
# Python package over it, at <libdir>/kaio/python/kaio (PYTHONPATH=
# <libdir>/kaio/python), which finds the libraries three levels up.
if(TARGET kaio)
  set_property(TARGET kaio_compiler APPEND PROPERTY INSTALL_RPATH
    "$ORIGIN" "${LLVM_LIBRARY_DIR}")
  install(TARGETS kaio kaio_compiler
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${KAIO_SOURCE_DIR}/include/kaio/kaio.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kaio)
  install(DIRECTORY ${KAIO_SOURCE_DIR}/python/kaio
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/kaio/python
    FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()
