//===- AttentionCheck.h - argument checks of the attention ops ---*- C++ -*-===//

#ifndef KAIO_LIB_OPS_ATTENTIONCHECK_H
#define KAIO_LIB_OPS_ATTENTIONCHECK_H

#include "Kaio/Ops/Attention.h"
#include "Kaio/Runtime/Signature.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kaio::ops::detail {

/// "BxSxHxD".
std::string dims(const AttentionTensor &t);
/// Bytes from the first element to one past the last.
std::uint64_t spanBytes(const AttentionTensor &t);
/// Shape, strides, dtype (f16/bf16), 16-byte rows and capacity of one
/// tensor; errors say "op: name: ...".
rt::Error checkTensor(const char *op, const char *name,
                      const AttentionTensor &t);
bool overlaps(const AttentionTensor &a, const AttentionTensor &b);
bool overlaps(const AttentionTensor &a, const Matrix &b);
/// "dtype X but must be Y (q's)".
rt::Error checkSameDType(const char *op, const char *name,
                         const AttentionTensor &t, const AttentionTensor &q);
/// "is BxSxHxD but must be ... (like's shape)".
rt::Error checkSameShape(const char *op, const char *name,
                         const AttentionTensor &t, const AttentionTensor &like,
                         const char *likeName);
/// The kernel parameters of a tensor: pointer (called `name` in launch
/// errors), batch, head and row strides.
void appendTensorArgs(std::vector<rt::KernelArg> &args, const char *name,
                      const AttentionTensor &t, bool isConst);

} // namespace kaio::ops::detail

#endif // KAIO_LIB_OPS_ATTENTIONCHECK_H
