//===- Interpreter.h - run ptx-dialect kernels on the CPU -------*- C++ -*-===//
//
// Executes `ptx.entry` kernels over a grid of blocks (in thread block
// clusters when asked) with PTX semantics and sanitizer checks
// (out-of-bounds and misaligned accesses, shared-memory races, uninitialised
// shared reads, cp.async destinations read before their wait, barrier
// divergence). Device memory is host memory behind fake 64-bit
// device addresses.
//
//   Interpreter interp(module);
//   uint64_t a = interp.allocGlobal(n * 4);
//   interp.write(a, host.data(), n * 4);
//   LaunchResult r = interp.launch("vector_add", {4}, {256}, {a, b, c, n});
//   if (!r) llvm::errs() << r.message();
//
// See docs/interpreter.md.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_INTERPRETER_INTERPRETER_H
#define KAIO_INTERPRETER_INTERPRETER_H

#include "Kaio/Runtime/TensorMapDesc.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kaio::interp {

class Profile;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(uint32_t x, uint32_t y = 1, uint32_t z = 1) : x(x), y(y), z(z) {}
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct LaunchOptions {
  /// Bytes of `extern` (dynamic) shared memory per block.
  uint32_t dynamicSharedBytes = 0;
  /// Bytes of `.local` memory each thread may address.
  uint32_t localBytesPerThread = 1024;
  /// Shared-memory race detection (a byte written by one thread and read or
  /// written by another with no barrier between them).
  bool checkRaces = true;
  /// Reads of shared memory nothing in this block has written.
  bool checkUninitialized = true;
  /// Global-memory race detection within the launch: a byte one thread
  /// wrote and another thread of its block reads or writes with no barrier
  /// between them, or that a thread of another block reads or writes (the
  /// blocks of a launch are unordered; atomics are exempt); and an
  /// ld.global.nc of a byte the launch wrote (the read-only path is not
  /// coherent with its stores). compute-sanitizer's racecheck covers shared
  /// memory only. It keeps a record of every byte the launch writes.
  bool checkGlobalRaces = true;
  /// Stop with an error after this many thread instructions (0: no limit);
  /// guards tests against kernels that never terminate.
  uint64_t maxInstructions = 0;
  /// When set, the launch adds its counts to this profile (instruction mix,
  /// bank conflicts, sectors, FLOPs per kernel and source line; see
  /// Kaio/Interpreter/Profile.h). A failed launch adds what ran.
  Profile *profile = nullptr;
  /// Thread block clusters (sm_90): blocks per cluster along each axis. The
  /// grid must be a whole number of clusters of at most 16 blocks. The
  /// blocks of a cluster run side by side, sharing distributed shared
  /// memory (mapa, `.shared::cluster`), the cluster barrier and multicast
  /// bulk copies; %is_explicit_cluster is set when a cluster has more than
  /// one block.
  Dim3 cluster;
};

struct LaunchResult {
  bool success = false;
  /// One entry per failure; each names the kernel, the op's location, the
  /// block and thread and, for memory errors, the address.
  std::vector<std::string> errors;
  /// Dynamic instructions executed, counted per thread (an instruction a
  /// full warp executes counts 32).
  uint64_t instructions = 0;
  /// Dynamic instructions counted per warp (one per instruction issue).
  uint64_t warpInstructions = 0;

  explicit operator bool() const { return success; }
  /// All errors, one per line.
  std::string message() const;
};

class Interpreter {
public:
  /// Interprets the kernels of `module`, which must stay alive. Module-scope
  /// `.global` / `.const` variables are allocated (zero-filled) here.
  explicit Interpreter(mlir::ModuleOp module);
  ~Interpreter();
  Interpreter(const Interpreter &) = delete;
  Interpreter &operator=(const Interpreter &) = delete;

  /// Allocates `bytes` of global memory (uninitialised contents are zero)
  /// and returns its device address, aligned to `align` (at least 256).
  uint64_t allocGlobal(uint64_t bytes, uint64_t align = 256);
  /// Frees an allocation; false if `address` does not start one.
  bool freeGlobal(uint64_t address);
  /// Copies between host and global memory; false (and nothing copied) when
  /// the range is not inside one allocation.
  bool write(uint64_t address, const void *data, uint64_t bytes);
  bool read(uint64_t address, void *data, uint64_t bytes) const;
  template <typename T>
  bool write(uint64_t address, const std::vector<T> &data) {
    return write(address, data.data(), data.size() * sizeof(T));
  }
  template <typename T>
  bool read(uint64_t address, std::vector<T> &data) const {
    return read(address, data.data(), data.size() * sizeof(T));
  }
  /// A tensor map for `ptx.tensor_map` parameters: 128 bytes of global
  /// memory holding KAIO's encoding of `desc` (Kaio/Runtime/TensorMapDesc.h;
  /// the interpreter does not read the driver's opaque format). Pass the
  /// returned address as the parameter's value.
  uint64_t allocTensorMap(const kaio::rt::TensorMapDesc &desc);
  /// Device address of a module-scope `.global` / `.const` variable.
  std::optional<uint64_t> getVariableAddress(llvm::StringRef symbol) const;

  /// Runs kernel `name` on `grid` x `block`. `args` holds one raw 64-bit
  /// value per kernel parameter (pointers as device addresses, floats as
  /// their bit patterns: see argF32/argF64).
  LaunchResult launch(llvm::StringRef name, Dim3 grid, Dim3 block,
                      llvm::ArrayRef<uint64_t> args,
                      const LaunchOptions &options);
  LaunchResult launch(llvm::StringRef name, Dim3 grid, Dim3 block,
                      llvm::ArrayRef<uint64_t> args,
                      uint32_t dynamicSharedBytes = 0) {
    LaunchOptions options;
    options.dynamicSharedBytes = dynamicSharedBytes;
    return launch(name, grid, block, args, options);
  }

  static uint64_t argF32(float value);
  static uint64_t argF64(double value);

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace kaio::interp

#endif // KAIO_INTERPRETER_INTERPRETER_H
