# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "KAIO"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kaio_obj_root, "test")
# Unit tests are their own suite (Unit/); sources of helper scripts aren't tests.
config.excludes = ["Unit", "unittests", "lit.cfg.py", "lit.site.cfg.py",
                   "CMakeLists.txt", "Inputs", "utils"]

llvm_config.use_default_substitutions()
for var in ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%kaio_src_root", config.kaio_src_root))
config.substitutions.append(("%kaio_obj_root", config.kaio_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%kaio_tools_dir", config.kaio_tools_dir))
# Debian's python3 (with python3-numpy) for the Python package's tests: the
# python3 on PATH may be another interpreter without it.
config.substitutions.append(
    ("%system_python", "/usr/bin/python3" if os.path.exists("/usr/bin/python3")
     else config.python_executable))
# The CPU stand-in for libcuda that the runtime tests load (KAIO_CUDA_DRIVER).
config.substitutions.append(
    ("%fake_cuda_driver",
     os.path.join(config.kaio_obj_root, "test", "unittests", "Runtime",
                  "libKaioFakeCudaDriver.so")))

# The C++ compiler and CMake of the build (test/CMakeLists.txt writes them).
build_cfg = os.path.join(config.kaio_obj_root, "test", "lit.build.cfg.py")
if os.path.exists(build_cfg):
    lit_config.load_config(config, build_cfg)
    # Longest first: lit substitutes in order (%cxx_launcher before %cxx).
    config.substitutions.append(("%cxx_launcher", config.cxx_launcher))
    config.substitutions.append(("%cxx", config.cxx_compiler))
    config.substitutions.append(("%cc", config.c_compiler))
    config.substitutions.append(("%cmake_generator", config.cmake_generator))
    config.substitutions.append(("%cmake", config.cmake_command))
    config.substitutions.append(("%make_program", config.make_program))
    config.substitutions.append(("%mlir_dir", config.mlir_dir))
    config.available_features.add("cxx")
    # scripts/test.sh --sanitize: tests that load instrumented libraries
    # into uninstrumented programs (python3) or build against an install
    # without the sanitizer flags say UNSUPPORTED: sanitizer.
    if getattr(config, "kaio_sanitize", ""):
        config.available_features.add("sanitizer")
if os.path.exists(os.path.join(config.kaio_tools_dir, "kaio-embed")):
    config.available_features.add("kaio-embed")

tools = [
    ToolSubst("kaio-embed", unresolved="ignore"),
    ToolSubst("kaio-opt", unresolved="fatal"),
    ToolSubst("kaio-translate", unresolved="fatal"),
    ToolSubst("kaio-run", unresolved="fatal"),
    ToolSubst("kaio-prof", unresolved="fatal"),
    ToolSubst("kaio-ops-hopper-gen", unresolved="fatal"),
    ToolSubst("kaio-ops-kernels-gen", unresolved="fatal"),
    # Built with Google Benchmark, which scripts/install-deps.sh installs.
    ToolSubst("kaio-bench", unresolved="ignore"),
] + [ToolSubst("kaio-fuzz-replay-" + target, unresolved="fatal")
     for target in ["signature", "cache-entry", "run-args", "mlir-to-ptx",
                    "interpreter"]]
llvm_config.add_tool_substitutions(
    tools, [config.kaio_tools_dir, config.llvm_tools_dir])

# ptxas: from the configure step, /usr/local/cuda/bin, or PATH.
ptxas = config.ptxas if config.ptxas and os.path.exists(config.ptxas) else None
if not ptxas:
    for candidate in ["/usr/local/cuda/bin/ptxas", shutil.which("ptxas")]:
        if candidate and os.path.exists(candidate):
            ptxas = candidate
            break
# The op library's embedded cubins and ptxas's report on them (written
# when the build found ptxas; a '#' line says why there is none).
library_dir = os.path.join(config.kaio_obj_root, "lib", "Ops",
                           "kaio_kernels", "KaioOps")
library_resources = os.path.join(library_dir, "ops_kernels.h.resources")
# %ops_kernels/CHIP.ptx and CHIP.ptxas.log: the PTX the build embedded for
# each chip and what ptxas -v said assembling it (kaio-embed --save-temps),
# read by the library-*.test checks instead of compiling the library again.
config.substitutions.append(("%ops_kernels", library_dir))
if os.path.exists(library_resources):
    with open(library_resources) as f:
        if not f.read(1).startswith("#"):
            config.available_features.add("library-cubins")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    # %ptx-check FILE CHIP...: prints FILE for each chip and assembles it.
    config.substitutions.append(
        ("%ptx-check",
         "%s %s --translate=%s --ptxas=%s" % (
             config.python_executable,
             os.path.join(config.kaio_src_root, "test", "utils", "ptx_check.py"),
             os.path.join(config.kaio_tools_dir, "kaio-translate"), ptxas)))
