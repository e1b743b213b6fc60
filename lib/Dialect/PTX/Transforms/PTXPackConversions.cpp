//===- PTXPackConversions.cpp - cvt.rn.{bf16,f16}x2.f32 for pairs ---------===//

#include "Kaio/Dialect/PTX/Transforms/Passes.h"

#include "Kaio/Dialect/PTX/IR/PTXInfo.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kaio::ptx {
#define GEN_PASS_DEF_PTXPACKCONVERSIONS
#include "Kaio/Dialect/PTX/Transforms/Passes.h.inc"
} // namespace kaio::ptx

using namespace mlir;
using namespace kaio::ptx;

namespace {

/// `v` as the result of an unguarded, plain round-to-nearest conversion of
/// an f32 to `type` (f16 or bf16) used only here, or null.
CvtOp plainNarrowing(Value v, PTXType type) {
  auto cvt = v.getDefiningOp<CvtOp>();
  if (!cvt || !cvt->hasOneUse() || cvt.getGuard() || cvt.getFtz() ||
      cvt.getSat() || cvt.getRelu() || cvt.getRnd() != Rounding::rn ||
      cvt.getSrcType() != PTXType::f32 || cvt.getDstType() != type)
    return nullptr;
  return cvt;
}

struct PTXPackConversionsPass
    : kaio::ptx::impl::PTXPackConversionsBase<PTXPackConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The packed forms need sm_80; a module without a target keeps its
    // conversions.
    auto target =
        module->getAttrOfType<StringAttr>(PTXDialect::kTargetAttrName);
    const ChipInfo *chip = target ? lookupChip(target.getValue()) : nullptr;
    if (!chip || !satisfies(*chip, CvtPackOp::getStaticPTXRequirement()))
      return;
    SmallVector<PackOp> packs;
    module.walk([&](PackOp pack) { packs.push_back(pack); });
    for (PackOp pack : packs) {
      if (pack.getGuard() || pack.getParts().size() != 2 ||
          pack.getType() != PTXType::b32)
        continue;
      for (auto [narrow, packed] : {std::pair{PTXType::bf16, PTXType::bf16x2},
                                    std::pair{PTXType::f16, PTXType::f16x2}}) {
        CvtOp lo = plainNarrowing(pack.getParts()[0], narrow);
        CvtOp hi = plainNarrowing(pack.getParts()[1], narrow);
        if (!lo || !hi)
          continue;
        OpBuilder b(pack);
        Value both = CvtPackOp::create(
            b, pack.getLoc(), pack.getResult().getType(), Rounding::rn,
            /*relu=*/false, /*satfinite=*/false, packed, hi.getSrc(),
            lo.getSrc(), /*guard=*/Value());
        pack.getResult().replaceAllUsesWith(both);
        pack.erase();
        hi.erase();
        lo.erase();
        break;
      }
    }
  }
};

} // namespace
