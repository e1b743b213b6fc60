# kaio_add_kernels: compile KAIO kernels at build time and embed them.
#
#   kaio_add_kernels(<target>
#     [SOURCES a.mlir b.mlir ...]      # kaio (or ptx) dialect kernels
#     [GENERATORS gen ...]             # executables (targets) that write a
#                                      # .mlir module to argv[1], e.g. kernels
#                                      # written with Kaio/Builder
#     [CHIPS sm_80 sm_90 ...]          # PTX per chip (default: sm_80); the
#                                      # runtime loads the best one for the GPU
#     [NAMESPACE ns] [CLASS Kernels]   # of the generated class
#     [HEADER name.h]                  # default: <target>_kernels.h
#     [PTX_VERSION 8.0] [FAST_MATH] [LINE_INFO] [RESOURCES]
#     [MODULE_ONLY]                    # no typed launchers, nothing looked
#                                      # up at load: module().getKernel(name)
#     [SAVE_TEMPS]                     # also <chip>.ptx and <chip>.ptxas.log
#                                      # beside the header (for tests)
#     [VARIANTS kernel:suffix:attr ...])  # also kernel_suffix, lowered with
#                                      # the unit attribute attr set
#                                      # (e.g. kaio.aligned_copies)
#
# Generates the header (in the build tree, on <target>'s include path) with
# the PTX texts and a class with one typed launch function per kernel (with
# RESOURCES, also <header>.resources beside it: ptxas's registers and
# spills per chip and kernel, kaio-embed --resources):
#
#   #include "app_kernels.h"
#   auto k = ns::Kernels::load(device);      // kaio::rt::Expected<...>
#   k->vector_add(config, a, b, c, uint32_t(n));   // wrong types don't compile
#
# <target> links Kaio::KaioRuntime only (no LLVM/MLIR). kaio-embed, which
# runs at build time, comes from the KAIO install (or the KAIO build tree);
# KAIO_EMBED_EXECUTABLE overrides it.

function(kaio_add_kernels target)
  cmake_parse_arguments(ARG "FAST_MATH;LINE_INFO;RESOURCES;MODULE_ONLY;SAVE_TEMPS"
    "NAMESPACE;CLASS;HEADER;PTX_VERSION" "SOURCES;GENERATORS;CHIPS;VARIANTS"
    ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "kaio_add_kernels: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kaio_add_kernels: '${target}' is not a target")
  endif()
  if(NOT ARG_SOURCES AND NOT ARG_GENERATORS)
    message(FATAL_ERROR "kaio_add_kernels(${target}): no SOURCES or GENERATORS")
  endif()
  if(NOT ARG_CHIPS)
    set(ARG_CHIPS sm_80)
  endif()
  if(NOT ARG_NAMESPACE)
    string(MAKE_C_IDENTIFIER "${target}_kernels" ARG_NAMESPACE)
  endif()
  if(NOT ARG_CLASS)
    set(ARG_CLASS Kernels)
  endif()
  if(NOT ARG_HEADER)
    set(ARG_HEADER ${target}_kernels.h)
  endif()

  if(KAIO_EMBED_EXECUTABLE)
    set(embed ${KAIO_EMBED_EXECUTABLE})
  elseif(TARGET Kaio::kaio-embed)
    set(embed Kaio::kaio-embed)
  elseif(TARGET kaio-embed)
    set(embed kaio-embed)
  else()
    message(FATAL_ERROR
      "kaio_add_kernels: kaio-embed not found (it comes with a KAIO install "
      "built with the compiler); set KAIO_EMBED_EXECUTABLE")
  endif()
  if(TARGET Kaio::KaioRuntime)
    set(runtime Kaio::KaioRuntime)
  else()
    set(runtime KaioRuntime)
  endif()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/kaio_kernels/${target})
  set(inputs)
  foreach(src ${ARG_SOURCES})
    get_filename_component(src ${src} ABSOLUTE BASE_DIR
      ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND inputs ${src})
  endforeach()
  foreach(gen ${ARG_GENERATORS})
    get_filename_component(name ${gen} NAME_WE)
    set(out ${dir}/${name}.mlir)
    if(TARGET ${gen})
      set(exe $<TARGET_FILE:${gen}>)
    else()
      set(exe ${gen})
    endif()
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
      COMMAND ${exe} ${out}
      DEPENDS ${gen}
      COMMENT "Generating KAIO kernels with ${name}"
      VERBATIM)
    list(APPEND inputs ${out})
  endforeach()

  string(REPLACE ";" "," chips "${ARG_CHIPS}")
  set(flags --chips=${chips} --namespace=${ARG_NAMESPACE} --class=${ARG_CLASS})
  if(ARG_PTX_VERSION)
    list(APPEND flags --ptx-version=${ARG_PTX_VERSION})
  endif()
  if(ARG_FAST_MATH)
    list(APPEND flags --fast-math)
  endif()
  if(ARG_LINE_INFO)
    list(APPEND flags --line-info)
  endif()
  if(ARG_MODULE_ONLY)
    list(APPEND flags --module-only)
  endif()
  foreach(variant ${ARG_VARIANTS})
    list(APPEND flags --variant=${variant})
  endforeach()
  # RESOURCES: beside the header, what ptxas reported for each embedded
  # cubin (registers, spills), for tests that hold the kernels to it.
  set(byproducts)
  if(ARG_RESOURCES)
    list(APPEND flags --resources=${dir}/${ARG_HEADER}.resources)
    set(byproducts BYPRODUCTS ${dir}/${ARG_HEADER}.resources)
  endif()
  # SAVE_TEMPS: each chip's PTX and ptxas's report beside the header, so
  # that tests read the code the build embedded.
  if(ARG_SAVE_TEMPS)
    list(APPEND flags --save-temps=${dir})
    if(NOT byproducts)
      set(byproducts BYPRODUCTS)
    endif()
    foreach(chip ${ARG_CHIPS})
      list(APPEND byproducts ${dir}/${chip}.ptx ${dir}/${chip}.ptxas.log)
    endforeach()
  endif()
  # The ptxas this build found (kaio-embed looks on PATH and in
  # /usr/local/cuda/bin otherwise).
  set(run_embed ${embed})
  if(KAIO_PTXAS)
    set(embed_file ${embed})
    if(TARGET ${embed})
      set(embed_file $<TARGET_FILE:${embed}>)
    endif()
    set(run_embed ${CMAKE_COMMAND} -E env KAIO_PTXAS=${KAIO_PTXAS}
        ${embed_file})
  endif()
  add_custom_command(OUTPUT ${dir}/${ARG_HEADER}
    ${byproducts}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${run_embed} ${flags} -o ${dir}/${ARG_HEADER} ${inputs}
    DEPENDS ${inputs} ${embed}
    COMMENT "Embedding KAIO kernels for ${target} (${chips})"
    VERBATIM)
  target_sources(${target} PRIVATE ${dir}/${ARG_HEADER})
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE ${runtime})
  target_compile_features(${target} PRIVATE cxx_std_17)
endfunction()
