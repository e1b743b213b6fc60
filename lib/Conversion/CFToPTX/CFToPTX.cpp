//===- CFToPTX.cpp - cf branches inside ptx kernels to ptx branches -------===//

#include "Kaio/Conversion/Passes.h"

#include "Kaio/Conversion/PTXBuilder.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kaio {
#define GEN_PASS_DEF_CONVERTCFTOPTX
#include "Kaio/Conversion/Passes.h.inc"
} // namespace kaio

using namespace mlir;
using namespace kaio::ptx;

namespace {

struct BranchLowering : OpConversionPattern<cf::BranchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(cf::BranchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<BraOp>(op, false, adaptor.getDestOperands(),
                                       op.getDest());
    return success();
  }
};

struct CondBranchLowering : OpConversionPattern<cf::CondBranchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(cf::CondBranchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<CondBraOp>(
        op, adaptor.getCondition(), false, adaptor.getTrueDestOperands(),
        adaptor.getFalseDestOperands(), op.getTrueDest(), op.getFalseDest());
    return success();
  }
};

struct ConvertCFToPTXPass : kaio::impl::ConvertCFToPTXBase<ConvertCFToPTXPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    PTXTypeConverter converter;
    RewritePatternSet patterns(ctx);
    patterns.add<BranchLowering, CondBranchLowering>(converter, ctx);
    if (failed(convertDialectToPTX<cf::ControlFlowDialect>(getOperation(),
                                        std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
