//===- PTXFoldAddressOffsets.cpp - [reg+imm] addresses ---------------------===//

#include "Kaio/Dialect/PTX/Transforms/Passes.h"

#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>
#include <optional>

namespace kaio::ptx {
#define GEN_PASS_DEF_PTXFOLDADDRESSOFFSETS
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

using namespace mlir;
using namespace kaio::ptx;

namespace {

std::optional<int64_t> constantOf(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast<IntegerAttr>(c.getValue());
  if (!attr)
    return std::nullopt;
  return attr.getValue().getSExtValue();
}

bool isIntegerAdd(PTXType type) {
  switch (type) {
  case PTXType::u32:
  case PTXType::s32:
  case PTXType::b32:
  case PTXType::u64:
  case PTXType::s64:
  case PTXType::b64:
    return true;
  default:
    return false;
  }
}

/// `addr` as a register plus a constant: through unguarded integer adds
/// and subtractions of constants, keeping the total a 32-bit immediate.
std::pair<Value, int64_t> split(Value addr, int64_t offset) {
  while (Operation *def = addr.getDefiningOp()) {
    std::optional<int64_t> step;
    Value rest;
    if (auto add = dyn_cast<AddOp>(def)) {
      if (add.getGuard() || !isIntegerAdd(add.getType()))
        break;
      if ((step = constantOf(add.getRhs())))
        rest = add.getLhs();
      else if ((step = constantOf(add.getLhs())))
        rest = add.getRhs();
    } else if (auto sub = dyn_cast<SubOp>(def)) {
      if (sub.getGuard() || !isIntegerAdd(sub.getType()))
        break;
      if ((step = constantOf(sub.getRhs())))
        rest = sub.getLhs(), *step = -*step;
    }
    if (!step)
      break;
    int64_t total = offset + *step;
    if (total < std::numeric_limits<int32_t>::min() ||
        total > std::numeric_limits<int32_t>::max())
      break;
    addr = rest;
    offset = total;
  }
  return {addr, offset};
}

/// Folds into the op's address operand and offset attribute.
template <typename Op>
void fold(Op op, OpOperand &addr, int64_t offset,
          llvm::function_ref<void(int64_t)> setOffset) {
  auto [base, total] = split(addr.get(), offset);
  if (base == addr.get())
    return;
  addr.set(base);
  setOffset(total);
}

struct PTXFoldAddressOffsetsPass
    : kaio::ptx::impl::PTXFoldAddressOffsetsBase<PTXFoldAddressOffsetsPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case<LoadOp, StoreOp, LdMatrixOp, StMatrixOp>([](auto o) {
            fold(o, o.getAddrMutable(), int64_t(o.getOffset()),
                 [&](int64_t v) { o.setOffset(v); });
          })
          .Case([](CpAsyncOp o) {
            fold(o, o.getDstMutable(), int64_t(o.getDstOffset()),
                 [&](int64_t v) { o.setDstOffset(v); });
          });
    });
  }
};

} // namespace
