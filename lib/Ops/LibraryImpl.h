//===- LibraryImpl.h - what a loaded Library holds ---------------*- C++ -*-===//

#ifndef KAIO_LIB_OPS_LIBRARYIMPL_H
#define KAIO_LIB_OPS_LIBRARYIMPL_H

#include "Kaio/Ops/Library.h"

#include "ops_kernels.h"

#include <string>
#include <unordered_map>

namespace kaio::ops {

struct Library::Impl {
  explicit Impl(ops_kernels::Kernels kernels) : kernels(std::move(kernels)) {}
  ops_kernels::Kernels kernels;
  /// Kernels picked by name at run time (the row kernels' dtype and vector
  /// variants), looked up once.
  std::unordered_map<std::string, rt::Kernel> byName;

  rt::Expected<rt::Kernel *> kernel(const std::string &name);
};

} // namespace kaio::ops

#endif // KAIO_LIB_OPS_LIBRARYIMPL_H
