//===- Module.cpp - Loading modules, the cubin cache, launching -----------===//

#include "Internal.h"

#include "Kaio/Runtime/BlockBounds.h"
#include "Kaio/Runtime/Stream.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace kaio::rt;
using namespace kaio::rt::detail;

namespace kaio::rt::detail {
void noteCacheHit();
void noteCacheMiss();
void noteCacheWrite(bool ok);
} // namespace kaio::rt::detail

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// JIT options
//===----------------------------------------------------------------------===//

namespace {
/// JIT options plus the log buffers they point into.
class JitOptions {
public:
  explicit JitOptions(const ModuleLoadOptions &opts)
      : infoLog_(kLogSize, '\0'), errorLog_(kLogSize, '\0') {
    add(CU_JIT_INFO_LOG_BUFFER, infoLog_.data());
    add(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, kLogSize - 1);
    add(CU_JIT_ERROR_LOG_BUFFER, errorLog_.data());
    add(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, kLogSize - 1);
    add(CU_JIT_LOG_VERBOSE, 1); // Register/spill usage in the info log.
    canonical_ = "v1";
    if (opts.optimizationLevel >= 0) {
      add(CU_JIT_OPTIMIZATION_LEVEL, opts.optimizationLevel);
      canonical_ += ";O" + std::to_string(opts.optimizationLevel);
    }
    if (opts.maxRegisters > 0) {
      add(CU_JIT_MAX_REGISTERS, opts.maxRegisters);
      canonical_ += ";maxrreg=" + std::to_string(opts.maxRegisters);
    }
    if (opts.generateLineInfo) {
      add(CU_JIT_GENERATE_LINE_INFO, 1);
      canonical_ += ";lineinfo";
    }
  }
  unsigned count() const { return static_cast<unsigned>(keys_.size()); }
  CUjit_option *keys() { return keys_.data(); }
  void **values() { return values_.data(); }
  std::string infoLog() const { return infoLog_.c_str(); }
  std::string errorLog() const { return errorLog_.c_str(); }
  /// "JIT error log:\n..." or empty.
  std::string errorDetails() const {
    std::string log = errorLog();
    return log.empty() ? log : "JIT error log:\n" + log;
  }
  const std::string &canonical() const { return canonical_; }

private:
  static constexpr std::size_t kLogSize = 32768;
  void add(CUjit_option key, void *value) {
    keys_.push_back(key);
    values_.push_back(value);
  }
  void add(CUjit_option key, std::size_t value) {
    // Integer options travel in the pointer slot itself.
    add(key, reinterpret_cast<void *>(static_cast<std::uintptr_t>(value)));
  }
  void add(CUjit_option key, int value) { add(key, std::size_t(value)); }
  std::string infoLog_, errorLog_;
  std::vector<CUjit_option> keys_;
  std::vector<void *> values_;
  std::string canonical_;
};

/// Owns a CUlinkState.
class LinkGuard {
public:
  explicit LinkGuard(const DriverApi &api) : api_(api) {}
  ~LinkGuard() {
    if (state)
      api_.cuLinkDestroy(state);
  }
  CUlinkState state = nullptr;

private:
  const DriverApi &api_;
};
} // namespace

/// JIT-links PTX into a cubin (so that it can be cached).
static Expected<std::string> linkPtx(const DriverApi &api,
                                     const std::string &ptx,
                                     JitOptions &jit,
                                     const std::string &doing,
                                     const std::string &name) {
  LinkGuard link(api);
  if (CUresult r =
          api.cuLinkCreate(jit.count(), jit.keys(), jit.values(), &link.state))
    return makeCudaError(api, r, "cuLinkCreate", doing, jit.errorDetails());
  // The size includes the terminating NUL, as the driver expects for PTX.
  if (CUresult r = api.cuLinkAddData(
          link.state, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()),
          ptx.size() + 1, name.c_str(), 0, nullptr, nullptr))
    return makeCudaError(api, r, "cuLinkAddData", doing, jit.errorDetails());
  void *cubin = nullptr;
  std::size_t size = 0;
  if (CUresult r = api.cuLinkComplete(link.state, &cubin, &size))
    return makeCudaError(api, r, "cuLinkComplete", doing, jit.errorDetails());
  // The image belongs to the link state; copy it before destroying that.
  return std::string(static_cast<const char *>(cubin), size);
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Expected<Module> Module::loadPtx(const Device &device, std::string_view ptxText,
                                 const ModuleLoadOptions &options) {
  std::string doing = "loading module '" + options.name + "'";
  Expected<std::vector<KernelSignature>> sigs = parseKernelSignatures(ptxText);
  if (!sigs)
    return sigs.takeError().addContext(doing);

  auto state = std::make_shared<ModuleState>();
  state->device = device.state();
  state->name = options.name;
  state->signatures = std::move(*sigs);
  const DriverApi &api = *state->device->api;
  const DeviceProperties &props = device.properties();
  std::string ptx(ptxText); // NUL-terminated for the driver.
  JitOptions jit(options);

  ScopedContext scope(*state->device);
  if (Error e = scope.enter(doing))
    return e;

  std::string cacheDir = getCacheDirectory();
  if (!options.useCache || !isCacheEnabled() || cacheDir.empty()) {
    CUmodule mod = nullptr;
    if (CUresult r = api.cuModuleLoadDataEx(&mod, ptx.c_str(), jit.count(),
                                            jit.keys(), jit.values()))
      return makeCudaError(api, r, "cuModuleLoadDataEx", doing,
                           jit.errorDetails());
    state->module = mod;
    state->cacheStatus = CacheStatus::Disabled;
    state->infoLog = jit.infoLog();
    return Module(std::move(state));
  }

  CacheKeyInputs keyInputs;
  keyInputs.deviceName = props.name;
  keyInputs.ccMajor = props.ccMajor;
  keyInputs.ccMinor = props.ccMinor;
  keyInputs.driverVersion = api.version;
  keyInputs.jitOptions = jit.canonical();
  std::string path =
      cacheDir + "/" + computeCacheKey(ptx, keyInputs) + ".cubin";

  if (Expected<std::string> file = readWholeFile(path); file && !file->empty()) {
    // Only a complete, unmodified entry reaches the driver.
    std::string cached = decodeCacheEntry(*file);
    CUmodule mod = nullptr;
    if (!cached.empty() &&
        api.cuModuleLoadData(&mod, cached.data()) == CUDA_SUCCESS) {
      state->module = mod;
      state->cacheStatus = CacheStatus::Hit;
      noteCacheHit();
      return Module(std::move(state));
    }
    // A corrupt or foreign entry: drop it and recompile.
    std::remove(path.c_str());
  }

  Expected<std::string> cubin = linkPtx(api, ptx, jit, doing, options.name);
  if (!cubin)
    return cubin.takeError();
  CUmodule mod = nullptr;
  if (CUresult r = api.cuModuleLoadData(&mod, cubin->data()))
    return makeCudaError(api, r, "cuModuleLoadData", doing);
  state->module = mod;
  state->cacheStatus = CacheStatus::Miss;
  state->infoLog = jit.infoLog();
  noteCacheMiss();
  std::string entry = encodeCacheEntry(*cubin);
  noteCacheWrite(makeDirectories(cacheDir) &&
                 writeFileAtomically(path, entry));
  return Module(std::move(state));
}

Expected<Module> Module::loadBinary(const Device &device, const void *image,
                                    std::size_t size,
                                    const ModuleLoadOptions &options) {
  std::string doing = "loading module '" + options.name + "'";
  if (!image || !size)
    return Error::make(ErrorCode::InvalidValue, "empty module image")
        .addContext(doing);
  auto state = std::make_shared<ModuleState>();
  state->device = device.state();
  state->name = options.name;
  if (!options.signatureSource.empty()) {
    Expected<std::vector<KernelSignature>> sigs =
        parseKernelSignatures(options.signatureSource);
    if (!sigs)
      return sigs.takeError().addContext(doing);
    state->signatures = std::move(*sigs);
  }
  const DriverApi &api = *state->device->api;
  JitOptions jit(options); // A fatbin may carry PTX that gets JIT-compiled.
  ScopedContext scope(*state->device);
  if (Error e = scope.enter(doing))
    return e;
  CUmodule mod = nullptr;
  if (CUresult r = api.cuModuleLoadDataEx(&mod, image, jit.count(), jit.keys(),
                                          jit.values()))
    return makeCudaError(api, r, "cuModuleLoadDataEx", doing,
                         jit.errorDetails());
  state->module = mod;
  state->infoLog = jit.infoLog();
  return Module(std::move(state));
}

Expected<Module> Module::loadFile(const Device &device, const std::string &path,
                                  ModuleLoadOptions options) {
  if (options.name == ModuleLoadOptions().name)
    options.name = path;
  Expected<std::string> data = readWholeFile(path);
  if (!data)
    return data.takeError();
  bool isPtx = path.size() >= 4 && path.compare(path.size() - 4, 4, ".ptx") == 0;
  if (isPtx)
    return loadPtx(device, *data, options);
  return loadBinary(device, data->data(), data->size(), options);
}

Module::~Module() = default;

const std::vector<KernelSignature> &Module::signatures() const {
  return state_->signatures;
}
const std::string &Module::name() const { return state_->name; }
CacheStatus Module::cacheStatus() const { return state_->cacheStatus; }
const std::string &Module::jitInfoLog() const { return state_->infoLog; }
CUmodule Module::raw() const { return state_->module; }

static Error queryAttributes(const DriverApi &api, CUfunction fn,
                             FunctionAttributes &a, const std::string &doing) {
  struct {
    int *field;
    CUfunction_attribute attr;
  } attrs[] = {
      {&a.numRegs, CU_FUNC_ATTRIBUTE_NUM_REGS},
      {&a.staticSharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
      {&a.constBytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
      {&a.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
      {&a.maxThreadsPerBlock, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {&a.ptxVersion, CU_FUNC_ATTRIBUTE_PTX_VERSION},
      {&a.binaryVersion, CU_FUNC_ATTRIBUTE_BINARY_VERSION},
      {&a.maxDynamicSharedBytes,
       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
  };
  for (auto &attr : attrs)
    if (CUresult r = api.cuFuncGetAttribute(attr.field, attr.attr, fn))
      return makeCudaError(api, r, "cuFuncGetAttribute", doing);
  return Error::success();
}

Expected<Kernel> Module::getKernel(std::string_view name) const {
  std::lock_guard<std::mutex> lock(state_->kernelsMutex);
  auto it = state_->kernels.find(name);
  if (it != state_->kernels.end())
    return Kernel(state_, it->second.get());

  std::string doing = "looking up kernel '" + std::string(name) +
                      "' in module '" + state_->name + "'";
  const DriverApi &api = *state_->device->api;
  ScopedContext scope(*state_->device);
  if (Error e = scope.enter(doing))
    return e;
  auto kernel = std::make_unique<KernelState>();
  kernel->name = std::string(name);
  if (CUresult r = api.cuModuleGetFunction(&kernel->function, state_->module,
                                           kernel->name.c_str())) {
    Error e = makeCudaError(api, r, "cuModuleGetFunction", doing);
    // The driver's own error, unless the name is one the module does not
    // declare (then: what it does declare); "not found" for a kernel its
    // PTX declares would contradict the list.
    if (r != CUDA_ERROR_NOT_FOUND ||
        findSignature(state_->signatures, name) != nullptr)
      return e;
    std::string known;
    for (const KernelSignature &sig : state_->signatures)
      known += (known.empty() ? "" : ", ") + sig.name;
    return Error::make(ErrorCode::NotFound,
                       "kernel '" + kernel->name + "' not found in module '" +
                           state_->name + "'" +
                           (known.empty() ? "" : " (it has: " + known + ")"));
  }
  if (Error e = queryAttributes(api, kernel->function, kernel->attrs, doing))
    return e;
  kernel->signature = findSignature(state_->signatures, name);
  KernelState *raw = kernel.get();
  state_->kernels.emplace(kernel->name, std::move(kernel));
  return Kernel(state_, raw);
}

//===----------------------------------------------------------------------===//
// Launch configuration
//===----------------------------------------------------------------------===//

std::string Dim3::str() const {
  std::string s = std::to_string(x);
  if (y != 1 || z != 1)
    s += "x" + std::to_string(y);
  if (z != 1)
    s += "x" + std::to_string(z);
  return s;
}

Error kaio::rt::validateLaunchConfig(const LaunchConfig &config,
                                     const DeviceProperties &props,
                                     const FunctionAttributes *attrs,
                                     std::string_view kernelName) {
  auto fail = [&](const std::string &msg) {
    Error e = Error::make(ErrorCode::InvalidConfig, msg);
    if (!kernelName.empty())
      e.addContext("launching kernel '" + std::string(kernelName) + "'");
    return e;
  };
  static const char *axes[] = {"x", "y", "z"};
  const unsigned block[3] = {config.block.x, config.block.y, config.block.z};
  const unsigned grid[3] = {config.grid.x, config.grid.y, config.grid.z};
  for (int i = 0; i < 3; ++i) {
    if (block[i] == 0)
      return fail(std::string("block dimension ") + axes[i] + " is 0");
    if (grid[i] == 0)
      return fail(std::string("grid dimension ") + axes[i] + " is 0");
  }
  const unsigned cluster[3] = {config.cluster.x, config.cluster.y,
                               config.cluster.z};
  for (int i = 0; i < 3; ++i)
    if (cluster[i] == 0 || grid[i] % cluster[i] != 0)
      return fail(std::string("cluster dimension ") + axes[i] + " " +
                  std::to_string(cluster[i]) +
                  " does not divide grid dimension " + axes[i] + " " +
                  std::to_string(grid[i]));
  if (std::uint64_t blocks = config.cluster.count(); blocks > 1) {
    if (props.computeCapability() < 90)
      return fail("thread block clusters need sm_90 or newer (the device is "
                  "sm_" + std::to_string(props.computeCapability()) + ")");
    unsigned limit =
        config.nonPortableCluster ? kMaxClusterBlocks : kPortableClusterBlocks;
    if (blocks > limit)
      return fail("cluster of " + std::to_string(blocks) +
                  " blocks exceeds " + std::to_string(limit) +
                  (config.nonPortableCluster
                       ? ""
                       : " (the portable size; set nonPortableCluster for "
                         "up to " +
                             std::to_string(kMaxClusterBlocks) + ")"));
  }
  std::uint64_t threads = config.block.count();
  if (threads > std::uint64_t(props.maxThreadsPerBlock))
    return fail("block size " + std::to_string(threads) +
                " exceeds max threads per block " +
                std::to_string(props.maxThreadsPerBlock));
  for (int i = 0; i < 3; ++i) {
    if (block[i] > unsigned(props.maxBlockDim[i]))
      return fail(std::string("block dimension ") + axes[i] + " " +
                  std::to_string(block[i]) + " exceeds max block dimension " +
                  axes[i] + " " + std::to_string(props.maxBlockDim[i]));
    if (grid[i] > unsigned(props.maxGridDim[i]))
      return fail(std::string("grid dimension ") + axes[i] + " " +
                  std::to_string(grid[i]) + " exceeds max grid dimension " +
                  axes[i] + " " + std::to_string(props.maxGridDim[i]));
  }
  if (attrs && attrs->maxThreadsPerBlock > 0 &&
      threads > std::uint64_t(attrs->maxThreadsPerBlock))
    return fail("block size " + std::to_string(threads) +
                " exceeds the kernel's max threads per block " +
                std::to_string(attrs->maxThreadsPerBlock) + " (it uses " +
                std::to_string(attrs->numRegs) + " registers per thread)");
  std::uint64_t staticBytes = attrs ? attrs->staticSharedBytes : 0;
  std::uint64_t total = staticBytes + config.dynamicSharedBytes;
  if (total > std::uint64_t(props.sharedMemPerBlockOptin))
    return fail("shared memory " + std::to_string(total) + " bytes (dynamic " +
                std::to_string(config.dynamicSharedBytes) + " + static " +
                std::to_string(staticBytes) +
                ") exceeds max shared memory per block (opt-in) " +
                std::to_string(props.sharedMemPerBlockOptin));
  if (attrs && config.dynamicSharedBytes >
                   unsigned(std::max(attrs->maxDynamicSharedBytes, 0)))
    return fail("dynamic shared memory " +
                std::to_string(config.dynamicSharedBytes) +
                " bytes exceeds the kernel's current limit of " +
                std::to_string(attrs->maxDynamicSharedBytes) +
                " bytes; opt in with Kernel::setMaxDynamicSharedMemory "
                "(device max shared memory per block (opt-in) " +
                std::to_string(props.sharedMemPerBlockOptin) + ")");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

const std::string &Kernel::name() const { return kernel_->name; }
const KernelSignature *Kernel::signature() const { return kernel_->signature; }
const FunctionAttributes &Kernel::attributes() const { return kernel_->attrs; }
CUfunction Kernel::raw() const { return kernel_->function; }
const std::shared_ptr<detail::DeviceState> &Kernel::deviceState() const {
  return module_->device;
}

Error Kernel::setMaxDynamicSharedMemory(unsigned bytes) {
  const DeviceProperties &props = module_->device->props;
  std::string doing = "raising the dynamic shared memory limit of kernel '" +
                      kernel_->name + "' to " + std::to_string(bytes);
  std::uint64_t total = std::uint64_t(bytes) + kernel_->attrs.staticSharedBytes;
  if (total > std::uint64_t(props.sharedMemPerBlockOptin))
    return Error::make(ErrorCode::InvalidConfig,
                       "dynamic shared memory " + std::to_string(bytes) +
                           " + static " +
                           std::to_string(kernel_->attrs.staticSharedBytes) +
                           " bytes exceeds max shared memory per block "
                           "(opt-in) " +
                           std::to_string(props.sharedMemPerBlockOptin))
        .addContext(doing);
  const DriverApi &api = *module_->device->api;
  ScopedContext scope(*module_->device);
  if (Error e = scope.enter(doing))
    return e;
  if (CUresult r = api.cuFuncSetAttribute(
          kernel_->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          int(bytes)))
    return makeCudaError(api, r, "cuFuncSetAttribute", doing);
  kernel_->attrs.maxDynamicSharedBytes = int(bytes);
  return Error::success();
}

/// CUfunction_attribute: clusters past the portable size allowed.
static constexpr int kNonPortableClusterSizeAllowed = 14;

/// Whether a launch names a cluster (any dimension but 1 x 1 x 1, zeros
/// included: validateLaunchConfig refuses those).
static bool namesCluster(const LaunchConfig &config) {
  return config.cluster.x != 1 || config.cluster.y != 1 ||
         config.cluster.z != 1;
}

/// A kernel compiled for a cluster (`cluster=` in its signature) takes that
/// one: `config` without a cluster gets it (so that the grid is checked
/// against it), one that names another is refused.
static Error applyCompiledCluster(const KernelSignature *sig,
                                  LaunchConfig &config,
                                  const std::string &kernelName) {
  if (!sig || !sig->hasCluster())
    return Error::success();
  Dim3 compiled(sig->cluster[0], sig->cluster[1], sig->cluster[2]);
  if (namesCluster(config) &&
      (config.cluster.x != compiled.x || config.cluster.y != compiled.y ||
       config.cluster.z != compiled.z))
    return Error::make(ErrorCode::InvalidConfig,
                       "cluster " + config.cluster.str() +
                           " differs from the kernel's compiled cluster " +
                           compiled.str() + " (.reqnctapercluster)")
        .addContext("launching kernel '" + kernelName + "'");
  config.cluster = compiled;
  return Error::success();
}

/// A launch's block against the one the kernel was compiled for (`maxntid=`
/// or `reqntid=` in its signature).
static Error checkCompiledBlock(const KernelSignature *sig, const Dim3 &block,
                                const std::string &kernelName) {
  if (!sig)
    return Error::success();
  std::string problem = describeBlockMismatch(
      {block.x, block.y, block.z}, sig->block, sig->blockRank, sig->exactBlock);
  if (problem.empty())
    return Error::success();
  return Error::make(ErrorCode::InvalidConfig, problem)
      .addContext("launching kernel '" + kernelName + "'");
}

Error Kernel::validate(const LaunchConfig &config) const {
  if (config.stream && config.stream->state() != module_->device)
    return Error::make(ErrorCode::InvalidValue,
                       "the stream belongs to device " +
                           std::to_string(config.stream->state()->props.ordinal) +
                           " but the kernel was loaded on device " +
                           std::to_string(module_->device->props.ordinal))
        .addContext("launching kernel '" + kernel_->name + "'");
  LaunchConfig checked = config;
  if (Error e = applyCompiledCluster(kernel_->signature, checked,
                                     kernel_->name))
    return e;
  if (Error e =
          checkCompiledBlock(kernel_->signature, checked.block, kernel_->name))
    return e;
  return validateLaunchConfig(checked, module_->device->props,
                              &kernel_->attrs, kernel_->name);
}

Error Kernel::checkArgs(const KernelArg *args, std::size_t numArgs) const {
  if (!kernel_->signature)
    return Error::success();
  return checkKernelArgs(*kernel_->signature, args, numArgs);
}

Error Kernel::launchArgs(const LaunchConfig &config, const KernelArg *args,
                         std::size_t numArgs) {
  if (Error e = checkArgs(args, numArgs))
    return e;
  // A pointer the GPU cannot use would fault in the kernel and lose the
  // context: refused before anything runs.
  for (std::size_t i = 0; i < numArgs; ++i) {
    const KernelArg &arg = args[i];
    if (arg.kind != KernelArg::Kind::Pointer &&
        arg.kind != KernelArg::Kind::UntypedPointer)
      continue;
    CUdeviceptr ptr;
    std::memcpy(&ptr, arg.storage, sizeof(ptr));
    if (!ptr || isKnownDevicePointer(ptr, module_->device->props.ordinal))
      continue;
    if (Error e = checkPointer(*module_->device, ptr, arg.describe(i)))
      return e.addContext("launching kernel '" + kernel_->name + "'");
  }
  // The driver's parameter array: on the stack for the kernels KAIO
  // writes (a launch is a hot path), on the heap past that.
  constexpr std::size_t kInline = 32;
  void *inlineParams[kInline + 1];
  std::vector<void *> heapParams;
  void **params = inlineParams;
  if (numArgs > kInline) {
    heapParams.resize(numArgs + 1);
    params = heapParams.data();
  }
  // cuLaunchKernel takes `void **` but only reads the parameters.
  for (std::size_t i = 0; i < numArgs; ++i)
    params[i] = const_cast<void *>(args[i].data());
  params[numArgs] = nullptr;
  return launchRaw(config, params);
}

Error Kernel::launchRaw(const LaunchConfig &requested, void **params) {
  // A kernel that keeps its tiles in dynamic shared memory (`smem=N` in its
  // signature) launches with at least N bytes, opted in when above the
  // kernel's current limit.
  LaunchConfig config = requested;
  if (const KernelSignature *sig = kernel_->signature;
      sig && sig->dynamicSharedBytes > config.dynamicSharedBytes) {
    config.dynamicSharedBytes = sig->dynamicSharedBytes;
    if (int(config.dynamicSharedBytes) > kernel_->attrs.maxDynamicSharedBytes)
      if (Error e = setMaxDynamicSharedMemory(config.dynamicSharedBytes))
        return e.addContext("launching kernel '" + kernel_->name +
                            "', which needs " +
                            std::to_string(sig->dynamicSharedBytes) +
                            " bytes of dynamic shared memory");
  }
  // A kernel compiled for a cluster is launched plainly when the launch
  // names none (the driver applies the compiled one).
  bool compiledCluster = kernel_->signature &&
                         kernel_->signature->hasCluster() &&
                         !namesCluster(config);
  if (Error e = applyCompiledCluster(kernel_->signature, config,
                                     kernel_->name))
    return e;
  if (Error e = validate(config))
    return e;
  // Described only when something fails: a launch is a hot path.
  auto doing = [&] {
    return "launching kernel '" + kernel_->name + "' (grid " +
           config.grid.str() + ", block " + config.block.str() +
           ", dynamic shared " + std::to_string(config.dynamicSharedBytes) +
           ")";
  };
  const DriverApi &api = *module_->device->api;
  ScopedContext scope(*module_->device);
  if (Error e = scope.enterLazily(doing))
    return e;
  // Clusters past the portable size need the kernel's permission, on
  // either path.
  if (config.cluster.count() > kPortableClusterBlocks &&
      config.nonPortableCluster)
    if (CUresult r = api.cuFuncSetAttribute(
            kernel_->function, kNonPortableClusterSizeAllowed, 1))
      return makeCudaError(api, r, "cuFuncSetAttribute", doing(),
                           "allowing a non-portable cluster size");
  if (config.cluster.count() > 1 && !compiledCluster)
    return launchCluster(config, params, doing());
  if (CUresult r = api.cuLaunchKernel(
          kernel_->function, config.grid.x, config.grid.y, config.grid.z,
          config.block.x, config.block.y, config.block.z,
          config.dynamicSharedBytes,
          config.stream ? config.stream->raw() : nullptr, params, nullptr))
    return makeCudaError(api, r, "cuLaunchKernel", doing());
  return Error::success();
}

namespace {
// cuda.h's CUlaunchAttribute / CUlaunchConfig, for the one attribute KAIO
// sets (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION).
struct LaunchExAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
static_assert(sizeof(LaunchExAttribute) == 72, "CUlaunchAttribute layout");
struct LaunchExConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  LaunchExAttribute *attrs;
  unsigned numAttrs;
};
constexpr int kClusterDimensionAttribute = 4;

/// The CUlaunchConfig of `config` with its cluster dimension (`attr`, which
/// it points to), over `grid`.
LaunchExConfig clusterLaunchConfig(const LaunchConfig &config, Dim3 grid,
                                   LaunchExAttribute &attr) {
  attr = LaunchExAttribute{};
  attr.id = kClusterDimensionAttribute;
  attr.value.clusterDim = {config.cluster.x, config.cluster.y,
                           config.cluster.z};
  return LaunchExConfig{grid.x,
                        grid.y,
                        grid.z,
                        config.block.x,
                        config.block.y,
                        config.block.z,
                        config.dynamicSharedBytes,
                        config.stream ? config.stream->raw() : nullptr,
                        &attr,
                        1};
}
} // namespace

Expected<unsigned> Kernel::maxActiveClusters(const LaunchConfig &requested) {
  const DriverApi &api = *module_->device->api;
  const std::string doing = "querying the active clusters of kernel '" +
                            kernel_->name + "'";
  if (!api.cuOccupancyMaxActiveClusters)
    return Error::make(ErrorCode::Unsupported,
                       "the CUDA driver has no cuOccupancyMaxActiveClusters "
                       "(CUDA 12)")
        .addContext(doing);
  // The shared memory a launch would have (and its opt-in, without which
  // no block of the kernel fits).
  LaunchConfig config = requested;
  if (const KernelSignature *sig = kernel_->signature)
    config.dynamicSharedBytes =
        std::max(config.dynamicSharedBytes, sig->dynamicSharedBytes);
  if (Error e = applyCompiledCluster(kernel_->signature, config,
                                     kernel_->name))
    return e;
  if (int(config.dynamicSharedBytes) > kernel_->attrs.maxDynamicSharedBytes)
    if (Error e = setMaxDynamicSharedMemory(config.dynamicSharedBytes))
      return e.addContext(doing);
  ScopedContext scope(*module_->device);
  if (Error e = scope.enter(doing))
    return e;
  // The grid must hold whole clusters; its size (and the stream) are
  // otherwise ignored.
  config.stream = nullptr;
  LaunchExAttribute attr;
  LaunchExConfig ex = clusterLaunchConfig(config, config.cluster, attr);
  int clusters = 0;
  if (CUresult r = api.cuOccupancyMaxActiveClusters(&clusters,
                                                    kernel_->function, &ex))
    return makeCudaError(api, r, "cuOccupancyMaxActiveClusters", doing);
  return unsigned(std::max(clusters, 0));
}

Error Kernel::launchCluster(const LaunchConfig &config, void **params,
                            const std::string &doing) {
  const DriverApi &api = *module_->device->api;
  if (!api.cuLaunchKernelEx)
    return Error::make(ErrorCode::Unsupported,
                       "the CUDA driver has no cuLaunchKernelEx (cluster "
                       "launches need CUDA 12)")
        .addContext(doing);
  LaunchExAttribute attr;
  LaunchExConfig ex = clusterLaunchConfig(config, config.grid, attr);
  if (CUresult r = api.cuLaunchKernelEx(&ex, kernel_->function, params,
                                        nullptr))
    return makeCudaError(api, r, "cuLaunchKernelEx", doing);
  return Error::success();
}
