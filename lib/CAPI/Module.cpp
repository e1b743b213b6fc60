//===- Module.cpp - C API: PTX modules and typed launches -----------------===//

#include "CAPIInternal.h"

#include <cstring>

using namespace kaio;
using namespace kaio::capi;

namespace {

kaio_status wrapModule(kaio_context ctx, rt::Expected<rt::Module> module,
                       kaio_module *out) {
  if (!module)
    return fail(module.error());
  auto handle = std::unique_ptr<kaio_module_st>(
      new kaio_module_st{ctx->device, std::move(*module), {}, {}, {}, {}});
  for (const rt::KernelSignature &sig : handle->module.signatures()) {
    handle->kernelNames.push_back(sig.name);
    handle->signatures.push_back(sig.str());
  }
  *out = handle.release();
  return KAIO_SUCCESS;
}

/// The kernel `name` of `module`, looked up once.
rt::Expected<rt::Kernel *> findKernel(kaio_module module,
                                      std::string_view name) {
  std::lock_guard<std::mutex> lock(module->mutex);
  auto it = module->kernels.find(name);
  if (it == module->kernels.end()) {
    rt::Expected<rt::Kernel> kernel = module->module.getKernel(name);
    if (!kernel)
      return kernel.takeError();
    it = module->kernels.emplace(std::string(name), std::move(*kernel)).first;
  }
  return &it->second;
}

kaio_status convertArg(const kaio_arg &in, std::size_t index,
                       rt::KernelArg &out) {
  auto bad = [&](const std::string &what) {
    return fail(KAIO_ERROR_INVALID_VALUE, "kaio_launch: args[" +
                                              std::to_string(index) + "]: " +
                                              what);
  };
  bool typeValid = in.type >= KAIO_TYPE_U8 && in.type <= KAIO_TYPE_B8;
  auto type = static_cast<rt::ScalarType>(in.type);
  switch (in.kind) {
  case KAIO_ARG_SCALAR:
    if (!typeValid || in.type == KAIO_TYPE_B8)
      return bad("type " + std::to_string(in.type) +
                 " is not a scalar kaio_scalar_type");
    out = rt::KernelArg::scalarBits(type, in.bits);
    return KAIO_SUCCESS;
  case KAIO_ARG_POINTER:
  case KAIO_ARG_CONST_POINTER:
    if (!typeValid)
      return bad("type " + std::to_string(in.type) +
                 " is not a kaio_scalar_type");
    out = rt::KernelArg::pointer(in.bits, type,
                                 in.kind == KAIO_ARG_CONST_POINTER);
    return KAIO_SUCCESS;
  case KAIO_ARG_ANY_POINTER:
    out = rt::KernelArg::untypedPointer(in.bits);
    return KAIO_SUCCESS;
  default:
    return bad("kind " + std::to_string(in.kind) + " is not a kaio_arg_kind");
  }
}

} // namespace

kaio_status kaio_module_load_ptx(kaio_context ctx, const char *ptx,
                                 size_t len, const char *name,
                                 kaio_module *out) {
  return guard("kaio_module_load_ptx", [&]() -> kaio_status {
    if (!ctx)
      return failNull("kaio_module_load_ptx", "ctx");
    if (!out)
      return failNull("kaio_module_load_ptx", "out");
    *out = nullptr;
    if (!ptx)
      return failNull("kaio_module_load_ptx", "ptx");
    rt::ModuleLoadOptions options;
    if (name)
      options.name = name;
    std::string_view text(ptx, len ? len : std::strlen(ptx));
    return wrapModule(ctx, rt::Module::loadPtx(*ctx->device, text, options),
                      out);
  });
}

kaio_status kaio_module_load_file(kaio_context ctx, const char *path,
                                  kaio_module *out) {
  return guard("kaio_module_load_file", [&]() -> kaio_status {
    if (!ctx)
      return failNull("kaio_module_load_file", "ctx");
    if (!out)
      return failNull("kaio_module_load_file", "out");
    *out = nullptr;
    if (!path)
      return failNull("kaio_module_load_file", "path");
    return wrapModule(ctx, rt::Module::loadFile(*ctx->device, path), out);
  });
}

void kaio_module_destroy(kaio_module module) { delete module; }

size_t kaio_module_kernel_count(kaio_module module) {
  return module ? module->kernelNames.size() : 0;
}

const char *kaio_module_kernel_name(kaio_module module, size_t i) {
  if (!module || i >= module->kernelNames.size())
    return nullptr;
  return module->kernelNames[i].c_str();
}

kaio_status kaio_module_kernel_signature(kaio_module module,
                                         const char *kernel,
                                         const char **signature) {
  return guard("kaio_module_kernel_signature", [&]() -> kaio_status {
    if (!module)
      return failNull("kaio_module_kernel_signature", "module");
    if (!kernel)
      return failNull("kaio_module_kernel_signature", "kernel");
    if (!signature)
      return failNull("kaio_module_kernel_signature", "signature");
    *signature = nullptr;
    for (std::size_t i = 0; i < module->kernelNames.size(); ++i)
      if (module->kernelNames[i] == kernel) {
        *signature = module->signatures[i].c_str();
        return KAIO_SUCCESS;
      }
    return fail(KAIO_ERROR_NOT_FOUND,
                std::string("kaio_module_kernel_signature: kernel: module '") +
                    module->module.name() + "' has no signature for '" +
                    kernel + "'");
  });
}

kaio_status kaio_launch(kaio_module module, const char *kernel, kaio_dim3 grid,
                        kaio_dim3 block, uint32_t dynamic_shared_bytes,
                        kaio_stream stream, const kaio_arg *args,
                        size_t num_args) {
  return guard("kaio_launch", [&]() -> kaio_status {
    if (!module)
      return failNull("kaio_launch", "module");
    if (!kernel)
      return failNull("kaio_launch", "kernel");
    if (!args && num_args)
      return failNull("kaio_launch", "args");
    std::vector<rt::KernelArg> argv(num_args);
    for (std::size_t i = 0; i < num_args; ++i)
      if (kaio_status s = convertArg(args[i], i, argv[i]))
        return s;
    rt::Expected<rt::Kernel *> k = findKernel(module, kernel);
    if (!k)
      return fail(k.error());
    rt::Stream borrowed = rt::Stream::borrow(*module->device, stream);
    rt::LaunchConfig config;
    config.grid = rt::Dim3(grid.x, grid.y, grid.z);
    config.block = rt::Dim3(block.x, block.y, block.z);
    config.dynamicSharedBytes = dynamic_shared_bytes;
    config.stream = stream ? &borrowed : nullptr;
    if (rt::Error e = (*k)->launchArgs(config, argv))
      return fail(e);
    return KAIO_SUCCESS;
  });
}
