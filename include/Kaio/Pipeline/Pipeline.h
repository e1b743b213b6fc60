//===- Pipeline.h - the kaio-to-ptx pipeline ----------------------*- C++ -*-===//
//
// The one place the lowering from the kaio dialect to the ptx dialect is
// assembled. Another compiler embeds KAIO by calling buildKaioToPTXPipeline.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_PIPELINE_PIPELINE_H
#define KAIO_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassOptions.h"
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace kaio {

struct KaioToPTXOptions : public mlir::PassPipelineOptions<KaioToPTXOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("target chip, e.g. sm_80 (default: the module's "
                     "kaio.target, else sm_80)"),
      llvm::cl::init("")};
  Option<bool> fastMath{
      *this, "fast-math",
      llvm::cl::desc("approximate f32 division (div.approx) and contraction"),
      llvm::cl::init(false)};
};

/// kaio + arith/math/scf → ptx dialect, ready for kaio-translate.
void buildKaioToPTXPipeline(mlir::OpPassManager &pm,
                            const KaioToPTXOptions &options);

/// A module written at the ptx level (ptx.entry bodies, as the op library's
/// sm_90a kernels are) whose formulas use arith and math ops: lowers those
/// in place, as the kaio pipeline would, and touches nothing else (no
/// canonicalization of the hand-scheduled ptx ops). kaio::compileToPTX
/// picks it for modules with no kaio kernel.
void buildPTXFormulaPipeline(mlir::OpPassManager &pm,
                             const KaioToPTXOptions &options);

/// Registers `--kaio-to-ptx="chip=sm_80 fast-math=1"` and
/// `--ptx-lower-formulas`.
void registerKaioToPTXPipeline();

} // namespace kaio

#endif // KAIO_PIPELINE_PIPELINE_H
