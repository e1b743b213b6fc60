//===- Library.cpp - loading the library's embedded kernels ---------------===//

#include "Kaio/Ops/Library.h"

#include "LibraryImpl.h"
#include "Kernels/OpsKernels.h"
#include "ops_hopper_kernels.h"
#include "ops_kernels.h"

#include <algorithm>

using namespace kaio;
using namespace kaio::ops;

Library::Impl::Impl(std::unique_ptr<ops_kernels::Kernels> kernels)
    : kernels(std::move(kernels)) {}
Library::Impl::~Impl() = default;

Library::Library(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Library::Library(Library &&) noexcept = default;
Library &Library::operator=(Library &&) noexcept = default;
Library::~Library() = default;

rt::Expected<Library> Library::load(const rt::Device &device) {
  rt::ModuleLoadOptions options;
  options.name = "kaio::ops";
  rt::Expected<ops_kernels::Kernels> kernels =
      ops_kernels::Kernels::load(device, options);
  if (!kernels)
    return kernels.takeError().addContext("loading the KAIO op library");
  auto impl = std::make_unique<Impl>(
      std::make_unique<ops_kernels::Kernels>(std::move(*kernels)));
  impl->smCount = std::max(1, device.properties().smCount);
  impl->sharedOptin =
      std::uint64_t(std::max(0, device.properties().sharedMemPerBlockOptin));
  impl->sharedPerSM =
      std::uint64_t(std::max(0, device.properties().sharedMemPerSm));
  impl->deviceName = device.properties().name;
  impl->deviceOrdinal = device.ordinal();
  // The TMA + wgmma kernels are arch-specific: sm_90a code runs on 9.0
  // only. Without them the portable kernels serve every op.
  if (device.properties().computeCapability() == 90) {
    options.name = "kaio::ops (sm_90a)";
    rt::Expected<ops_hopper_kernels::Kernels> hopper =
        ops_hopper_kernels::Kernels::load(device, options);
    if (!hopper)
      return hopper.takeError().addContext("loading the KAIO op library's "
                                           "sm_90a kernels");
    impl->hopper =
        std::make_unique<ops_hopper_kernels::Kernels>(std::move(*hopper));
  }
  return Library(std::move(impl));
}

rt::Expected<rt::Kernel *> Library::Impl::kernel(const std::string &name,
                                                 bool hopperSet) {
  auto it = byName.find(name);
  if (it == byName.end()) {
    if (hopperSet && !hopper)
      return rt::Error::make(rt::ErrorCode::Unsupported,
                             "kernel '" + name + "' needs an sm_90 GPU");
    rt::Expected<rt::Kernel> k = hopperSet ? hopper->module().getKernel(name)
                                           : kernels->module().getKernel(name);
    if (!k)
      return k.takeError();
    it = byName.emplace(name, std::move(*k)).first;
  }
  return &it->second;
}

rt::Error Library::Impl::launchColumns(const char *op, const std::string &name,
                                       std::int64_t across,
                                       std::int64_t slices,
                                       const rt::Stream *stream,
                                       std::vector<rt::KernelArg> args) {
  rt::Expected<rt::Kernel *> k = kernel(name);
  if (!k)
    return k.takeError().addContext(op);
  rt::LaunchConfig config;
  config.grid = rt::Dim3(
      unsigned((across + kernels::kGemvBlock - 1) / kernels::kGemvBlock),
      unsigned(slices));
  config.block = rt::Dim3(kernels::kGemvBlock);
  config.stream = stream;
  if (rt::Error e = (*k)->launchArgs(config, args))
    return e.addContext(op);
  return rt::Error::success();
}
