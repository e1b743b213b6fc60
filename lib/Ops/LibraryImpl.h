//===- LibraryImpl.h - what a loaded Library holds ---------------*- C++ -*-===//

#ifndef KAIO_LIB_OPS_LIBRARYIMPL_H
#define KAIO_LIB_OPS_LIBRARYIMPL_H

#include "Kaio/Ops/Library.h"

#include "Kaio/Runtime/Module.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ops_kernels {
class Kernels;
} // namespace ops_kernels

namespace kaio::ops {

/// The loaded embedded kernels (only Library.cpp includes
/// the generated header, megabytes of PTX and cubins). Ops pick kernels by
/// name (dtype and vector variants); each is looked up once.
struct Library::Impl {
  explicit Impl(std::unique_ptr<ops_kernels::Kernels> kernels);
  ~Impl();
  std::unique_ptr<ops_kernels::Kernels> kernels;
  std::unordered_map<std::string, rt::Kernel> byName;

  rt::Expected<rt::Kernel *> kernel(const std::string &name);
  /// Launches the column kernel `name` (gemv_t, reduce_cols) with
  /// kGemvBlock threads a block over `across` threads' worth of columns
  /// and `slices` row slices (grid y); errors say `op`.
  rt::Error launchColumns(const char *op, const std::string &name,
                          std::int64_t across, std::int64_t slices,
                          const rt::Stream *stream,
                          std::vector<rt::KernelArg> args);
};

} // namespace kaio::ops

#endif // KAIO_LIB_OPS_LIBRARYIMPL_H
