# -*- Python -*-
# GoogleTest binaries (named *Tests) under build/test/unittests.
import os

import lit.formats

config.name = "KAIO-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.kaio_obj_root, "test", "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# GPU tests read these; keep JIT caches out of the user's home.
for var in ["CUDA_VISIBLE_DEVICES", "HOME", "KAIO_CUDA_DRIVER", "ASAN_OPTIONS",
            "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["KAIO_CACHE_DIR"] = os.path.join(config.kaio_obj_root,
                                                    "test", "kaio-cache")
