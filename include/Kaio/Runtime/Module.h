//===- Module.h - Modules, kernels and launches -----------------*- C++ -*-===//

#ifndef KAIO_RUNTIME_MODULE_H
#define KAIO_RUNTIME_MODULE_H

#include "Kaio/Runtime/Cache.h"
#include "Kaio/Runtime/CudaTypes.h"
#include "Kaio/Runtime/Error.h"
#include "Kaio/Runtime/Signature.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kaio::rt {

class Device;
class Stream;
struct DeviceProperties;
namespace detail {
struct DeviceState;
struct ModuleState;
struct KernelState;
} // namespace detail

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
  std::uint64_t count() const { return std::uint64_t(x) * y * z; }
  /// "128" or "16x16" or "4x4x2".
  std::string str() const;
};

struct LaunchConfig {
  Dim3 grid, block;
  unsigned dynamicSharedBytes = 0;
  const Stream *stream = nullptr; ///< Null: the legacy default stream.
  /// Thread block clusters (sm_90): blocks per cluster along each axis, each
  /// a divisor of the grid's; 1 x 1 x 1 is an ordinary launch. Up to 8
  /// blocks (the portable size), 16 with `nonPortableCluster`. Launched
  /// with cuLaunchKernelEx.
  Dim3 cluster;
  bool nonPortableCluster = false;
};

/// cuFuncGetAttribute values for one kernel.
struct FunctionAttributes {
  int numRegs = 0;
  int staticSharedBytes = 0;
  int constBytes = 0;
  int localBytes = 0;
  int maxThreadsPerBlock = 0; ///< May be below the device's (registers).
  int ptxVersion = 0;
  int binaryVersion = 0;
  int maxDynamicSharedBytes = 0; ///< Current limit; raise it by opting in.
};

/// Checks `config` against the device limits and, when given, the kernel's
/// attributes. Messages name the limit: "block size 2048 exceeds max threads
/// per block 1024".
Error validateLaunchConfig(const LaunchConfig &config,
                           const DeviceProperties &props,
                           const FunctionAttributes *attrs = nullptr,
                           std::string_view kernelName = {});

struct ModuleLoadOptions {
  /// Shown in errors ("while loading module 'x.ptx'").
  std::string name = "<memory>";
  int optimizationLevel = -1; ///< 0-4; -1: driver default.
  int maxRegisters = 0;       ///< 0: no limit.
  bool generateLineInfo = false;
  bool useCache = true; ///< Also subject to KAIO_CACHE.
  /// For loadBinary: PTX text whose `// kaio.kernel` signatures describe
  /// the image's kernels (the PTX the cubin was assembled from), so that
  /// launches are typed and dynamic shared memory is known.
  std::string_view signatureSource;
};

class Kernel;

/// A loaded module. Move-only; unloaded when it and its Kernels are gone.
class Module {
public:
  /// JIT-compiles PTX text (through the cubin cache when enabled). Any
  /// `// kaio.kernel` signatures in it are parsed for typed launches.
  static Expected<Module> loadPtx(const Device &device, std::string_view ptx,
                                  const ModuleLoadOptions &options = {});
  /// Loads a cubin or fatbin image.
  static Expected<Module> loadBinary(const Device &device, const void *image,
                                     std::size_t size,
                                     const ModuleLoadOptions &options = {});
  /// Loads a file: ".ptx" as PTX, anything else as cubin/fatbin.
  static Expected<Module> loadFile(const Device &device,
                                   const std::string &path,
                                   ModuleLoadOptions options = {});

  Module(Module &&) noexcept = default;
  Module &operator=(Module &&) noexcept = default;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  ~Module();

  Expected<Kernel> getKernel(std::string_view name) const;
  const std::vector<KernelSignature> &signatures() const;
  const std::string &name() const;
  CacheStatus cacheStatus() const;
  /// The JIT info log (e.g. ptxas register usage); empty on a cache hit.
  const std::string &jitInfoLog() const;
  CUmodule raw() const;

private:
  explicit Module(std::shared_ptr<detail::ModuleState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<detail::ModuleState> state_;
};

/// A kernel of a loaded module; keeps the module alive. Cheap to copy.
class Kernel {
public:
  const std::string &name() const;
  /// The `// kaio.kernel` signature, or null when the PTX had none.
  const KernelSignature *signature() const;
  const FunctionAttributes &attributes() const;

  /// Opts in to more than the default (48 KiB) dynamic shared memory, up to
  /// the device's opt-in maximum minus the kernel's static shared memory.
  Error setMaxDynamicSharedMemory(unsigned bytes);
  Error validate(const LaunchConfig &config) const;
  /// Checks against the signature; success when there is none.
  Error checkArgs(const KernelArg *args, std::size_t numArgs) const;

  /// Typed launch: converts `args` (scalars, DeviceBuffer, DeviceView,
  /// KernelArg), checks them and the configuration, then launches.
  template <typename... Args>
  Error launch(const LaunchConfig &config, const Args &...args) {
    KernelArg argv[sizeof...(Args) + 1] = {toKernelArg(args)..., KernelArg()};
    return launchArgs(config, argv, sizeof...(Args));
  }
  Error launchArgs(const LaunchConfig &config, const KernelArg *args,
                   std::size_t numArgs);
  Error launchArgs(const LaunchConfig &config,
                   std::initializer_list<KernelArg> args) {
    return launchArgs(config, args.begin(), args.size());
  }
  Error launchArgs(const LaunchConfig &config,
                   const std::vector<KernelArg> &args) {
    return launchArgs(config, args.data(), args.size());
  }
  /// Untyped launch with cuLaunchKernel's `void **` convention; only the
  /// configuration is checked.
  Error launchRaw(const LaunchConfig &config, void **params);
  /// How many clusters of `config.cluster` blocks (with its block size and
  /// dynamic shared memory; the grid does not matter) the device runs at
  /// once: what a persistent clustered kernel's grid should hold
  /// (cuOccupancyMaxActiveClusters; opts in to the shared memory the
  /// kernel's signature needs, as a launch does). Unsupported when the
  /// driver lacks it.
  Expected<unsigned> maxActiveClusters(const LaunchConfig &config);

  CUfunction raw() const;
  /// For runtime internals: the device the kernel was loaded on.
  const std::shared_ptr<detail::DeviceState> &deviceState() const;

private:
  friend class Module;
  /// A launch with cluster dimensions, through cuLaunchKernelEx.
  Error launchCluster(const LaunchConfig &config, void **params,
                      const std::string &doing);
  Kernel(std::shared_ptr<detail::ModuleState> module,
         detail::KernelState *kernel)
      : module_(std::move(module)), kernel_(kernel) {}
  std::shared_ptr<detail::ModuleState> module_;
  detail::KernelState *kernel_ = nullptr; ///< Owned by the module.
};

} // namespace kaio::rt

#endif // KAIO_RUNTIME_MODULE_H
