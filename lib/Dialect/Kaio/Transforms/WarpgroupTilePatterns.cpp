//===- WarpgroupTilePatterns.cpp - sm_90a tile ops to ptx -----------------===//
//
// mbarrier ops become mbarrier.init/arrive and a try_wait.parity loop;
// kaio.warpgroup_mma becomes wgmma.fence, one wgmma.mma_async per 16 of K
// reading A (or taking it from registers) and B through shared memory
// descriptors, and wgmma.commit_group; kaio.warpgroup_wait becomes
// wgmma.wait_group and hands the accumulator registers on. The descriptors
// come from the operands' layouts (PTXInfo's makeWgmmaDescriptor): a
// K-major operand (A, or B with `transpose`) has rows of the swizzle's
// span, 8-row groups `8 * span` bytes apart; an MN-major one (B, or A with
// `transpose`: trans-b / trans-a) keeps its blocks of columns `K * span`
// bytes apart.
//
//===----------------------------------------------------------------------===//

#include "TilePatterns.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kaio;

namespace {

/// The shared address of mbarrier `index` of `bars`.
Value barrierAddress(OpBuilder &b, Location loc, Value bars, Value index) {
  return SharedAddressOp::create(b, loc, b.getI32Type(), bars,
                                 ValueRange{index});
}

struct MBarrierInitLowering : OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value addr = barrierAddress(rewriter, op.getLoc(), op.getBars(),
                                adaptor.getIndex());
    ptx::MBarrierInitOp::create(rewriter, op.getLoc(), addr,
                                adaptor.getCount(), Value(), false);
    // TMA completes transactions on the barrier through the async proxy:
    // make the initialisation visible to it (sm_90, as TMA is).
    auto kernel = op->getParentOfType<KernelOp>();
    bool tma = kernel && kernel
                             .walk([](Operation *o) {
                               return isa<TmaLoadOp, TmaStoreOp>(o)
                                          ? WalkResult::interrupt()
                                          : WalkResult::advance();
                             })
                             .wasInterrupted();
    if (tma)
      ptx::FenceMBarrierInitOp::create(rewriter, op.getLoc(), Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value addr = barrierAddress(rewriter, op.getLoc(), op.getBars(),
                                adaptor.getIndex());
    if (Value block = adaptor.getBlock()) {
      // The same barrier of another block of the cluster: its
      // .shared::cluster address. The arrive keeps the default .release.cta
      // (it publishes that this block is done with a stage, which the
      // barrier itself orders before the other block's TMA writes); a
      // .release.cluster one fences at cluster scope on every arrive, which
      // made the clustered library GEMM 3.4x slower on an H100.
      Value remote = ptx::MapaOp::create(rewriter, op.getLoc(), addr.getType(),
                                         ptx::StateSpace::shared_cluster, addr,
                                         block, Value(), false);
      ptx::MBarrierArriveOp::create(
          rewriter, op.getLoc(), Type(), bool(adaptor.getTxBytes()),
          ptx::MemOrderAttr(), ptx::MemScopeAttr(),
          ptx::StateSpace::shared_cluster, remote, adaptor.getTxBytes(),
          Value(), false);
      rewriter.eraseOp(op);
      return success();
    }
    ptx::MBarrierArriveOp::create(
        rewriter, op.getLoc(), Type(), bool(adaptor.getTxBytes()),
        ptx::MemOrderAttr(), ptx::MemScopeAttr(), ptx::StateSpace::shared,
        addr, adaptor.getTxBytes(), Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `while (!mbarrier.try_wait.parity(addr, parity)) {}`: try_wait suspends
/// the thread for a while inside the instruction, so the loop spins little.
struct MBarrierWaitLowering : OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr = barrierAddress(rewriter, loc, op.getBars(), adaptor.getIndex());
    Value parity = adaptor.getParity();
    scf::WhileOp::create(
        rewriter, loc, TypeRange{}, ValueRange{},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value ready = ptx::MBarrierTryWaitOp::create(
              b, l, b.getI1Type(), /*parity=*/true, ptx::MemOrderAttr(),
              ptx::MemScopeAttr(), addr, parity, Value(), Value(), false);
          Value yes = arith::ConstantIntOp::create(b, l, 1, 1);
          Value pending = arith::XOrIOp::create(b, l, ready, yes);
          scf::ConditionOp::create(b, l, pending, ValueRange{});
        },
        [](OpBuilder &b, Location l, ValueRange) {
          scf::YieldOp::create(b, l);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Bytes of a row of a hardware-swizzled tile: the swizzle's span.
int64_t swizzleSpan(SmemType tile) {
  return int64_t(16) << tile.getLayout().getSwizzleBits();
}

/// The shared address of row `row` of a hardware-swizzled tile. Operand
/// rows start on whole swizzle patterns (multiples of 8), where the swizzle
/// moves nothing: the tile's base plus `row` rows, no XOR arithmetic (the
/// descriptor's base offset is 0; the hardware swizzles by address).
Value rowAddress(OpBuilder &b, Location loc, Value tile, Value row) {
  auto type = cast<SmemType>(tile.getType());
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value base =
      SharedAddressOp::create(b, loc, b.getI32Type(), tile, ValueRange{zero, zero});
  int64_t rowBytes = type.getShape()[1] *
                     (type.getElementType().getIntOrFloatBitWidth() / 8);
  Value offset = arith::MulIOp::create(
      b, loc, row, arith::ConstantIntOp::create(b, loc, rowBytes, 32));
  return arith::AddIOp::create(b, loc, base, offset);
}

/// The i64 descriptor of the matrix at shared address `addr` (i32) whose
/// other fields are `high` (makeWgmmaDescriptor at address 0). The address
/// field is 14 bits of addr >> 4 and the bits above must go: a CTA of rank
/// r > 0 of a cluster sees its own shared addresses with high bits set,
/// which would spill into the leading byte offset. Every kernel masks
/// them, not only those declaring a cluster_size: a launch may put any
/// kernel in clusters (LaunchConfig::cluster, kaio-run --cluster).
Value descriptor(OpBuilder &b, Location loc, Value addr, uint64_t high) {
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), addr);
  Value shifted = arith::ShRUIOp::create(
      b, loc, wide, arith::ConstantIntOp::create(b, loc, 4, 64));
  Value field = arith::AndIOp::create(
      b, loc, shifted, arith::ConstantIntOp::create(b, loc, 0x3fff, 64));
  return arith::OrIOp::create(
      b, loc, field, arith::ConstantIntOp::create(b, loc, int64_t(high), 64));
}

Value addConstant(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (!c)
    return x;
  return arith::AddIOp::create(
      b, loc, x, arith::ConstantIntOp::create(b, loc, x.getType(), c));
}

struct WarpgroupMmaLowering : OpConversionPattern<WarpgroupMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupMmaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aTile = dyn_cast<SmemType>(op.getA().getType());
    SmemType b = op.getB().getType();
    auto acc = cast<FragType>(op.getAcc().getType());
    const int64_t k = op.getKExtent();
    const bool transA = op.getTransposeA(); // M-major A (trans-a)
    int64_t bSpan = swizzleSpan(b);
    unsigned n = acc.getTileCols() * 8;
    bool transB = !op.getTranspose(); // wgmma's trans-b reads N-major B
    std::optional<uint64_t> bHigh = ptx::makeWgmmaDescriptor(
        0, transB ? k * bSpan : 0, 8 * bSpan, b.getLayout().getSwizzle());
    if (!bHigh)
      return rewriter.notifyMatchFailure(op, "no descriptor for B's layout");
    const ptx::PTXType aType = getWgmmaType(
        aTile ? aTile.getElementType()
              : cast<FragType>(op.getA().getType()).getElementType());
    const ptx::PTXType bType = getWgmmaType(b.getElementType());
    // One wgmma covers 32 bytes of K: k16 of 16-bit, k32 of 8-bit elements.
    const int64_t kInstr =
        32 / (b.getElementType().getIntOrFloatBitWidth() / 8);

    // The descriptors of every k step, computed as early as their operands
    // allow: ptxas serialises wgmma (C7513) when registers they read are
    // defined while another group is in flight, e.g. this group's
    // descriptors computed after an earlier warpgroup_mma was issued.
    SmallVector<Value> aDescs, bDescs;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      Block *block = op->getBlock();
      Operation *after = nullptr;
      SmallVector<Value, 4> used = {adaptor.getBRow().front(), op.getB()};
      if (aTile)
        used.append({adaptor.getARow().front(), op.getA()});
      for (Value value : used) {
        Operation *def = value.getDefiningOp();
        if (!def || def->getBlock() != block)
          continue;
        if (!after || after->isBeforeInBlock(def))
          after = def;
      }
      if (after)
        rewriter.setInsertionPointAfter(after);
      else
        rewriter.setInsertionPointToStart(block);
      Value aDesc;
      if (aTile) {
        // K-major A needs no leading offset; an M-major one steps K rows
        // of the swizzle's span between its blocks of columns, as B.
        std::optional<uint64_t> aHigh = ptx::makeWgmmaDescriptor(
            0, transA ? k * swizzleSpan(aTile) : 0, 8 * swizzleSpan(aTile),
            aTile.getLayout().getSwizzle());
        if (!aHigh)
          return rewriter.notifyMatchFailure(op,
                                             "no descriptor for A's layout");
        aDesc = descriptor(
            rewriter, loc,
            rowAddress(rewriter, loc, op.getA(), adaptor.getARow().front()),
            *aHigh);
      }
      Value bDesc = descriptor(
          rewriter, loc,
          rowAddress(rewriter, loc, op.getB(), adaptor.getBRow().front()),
          *bHigh);
      // Each operand steps 32 bytes along its rows (K-major; A in
      // registers moves to its next register atom) or 16 rows of its
      // blocks (MN-major). The start address field counts 16 bytes.
      for (int64_t kk = 0; kk < k / kInstr; ++kk) {
        aDescs.push_back(
            aTile ? addConstant(rewriter, loc, aDesc,
                                kk * (transA ? swizzleSpan(aTile) : 2))
                  : Value());
        bDescs.push_back(
            addConstant(rewriter, loc, bDesc, kk * (transB ? bSpan : 2)));
      }
    }

    // A zero accumulator (a fresh S = Q K^T) is not read: the first wgmma
    // takes scale-d 0 and the zeros never reach a register.
    bool zeroAcc = false;
    if (auto fill = op.getAcc().getDefiningOp<FragFillOp>())
      zeroAcc = matchPattern(fill.getValue(), m_AnyZeroFloat());

    ValueRange aRegs = adaptor.getA();
    unsigned aPerStep = aTile ? 0 : aRegs.size() / (k / kInstr);
    SmallVector<Value> regs(adaptor.getAcc().begin(), adaptor.getAcc().end());
    SmallVector<Type> types(regs.size(), rewriter.getF32Type());
    ptx::WgmmaFenceOp::create(rewriter, loc, Value(), false);
    for (int64_t kk = 0; kk < k / kInstr; ++kk) {
      auto mma = ptx::WgmmaMmaAsyncOp::create(
          rewriter, loc, types, n, kInstr, ptx::PTXType::f32, aType, bType,
          /*satfinite=*/false, regs,
          aTile ? ValueRange{} : aRegs.slice(kk * aPerStep, aPerStep),
          aDescs[kk], bDescs[kk], Value(),
          zeroAcc && kk == 0 ? rewriter.getI32IntegerAttr(0) : IntegerAttr(),
          IntegerAttr(), IntegerAttr(),
          transA, transB, Value(), false);
      regs.assign(mma.getD().begin(), mma.getD().end());
    }
    ptx::WgmmaCommitGroupOp::create(rewriter, loc, Value(), false);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct WarpgroupWaitLowering : OpConversionPattern<WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ptx::WgmmaWaitGroupOp::create(rewriter, op.getLoc(), op.getPending(),
                                  Value(), false);
    SmallVector<SmallVector<Value>> results;
    for (ValueRange regs : adaptor.getAccs())
      results.emplace_back(regs.begin(), regs.end());
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

struct SetMaxNRegLowering : OpConversionPattern<SetMaxNRegOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SetMaxNRegOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ptx::SetMaxNRegOp::create(rewriter, op.getLoc(),
                              op.getAction() == RegisterAction::inc
                                  ? ptx::SetMaxNRegAction::inc
                                  : ptx::SetMaxNRegAction::dec,
                              op.getCount(), Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceProxyAsyncLowering : OpConversionPattern<FenceProxyAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ptx::FenceProxyAsyncOp::create(
        rewriter, op.getLoc(),
        ptx::StateSpaceAttr::get(rewriter.getContext(),
                                 ptx::StateSpace::shared),
        Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitLowering : OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ptx::CpAsyncBulkWaitGroupOp::create(rewriter, op.getLoc(), /*read=*/true,
                                        op.getPending(), Value(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kaio::populateWarpgroupTilePatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         ConversionTarget &target) {
  patterns.add<MBarrierInitLowering, MBarrierArriveLowering,
               MBarrierWaitLowering, WarpgroupMmaLowering,
               WarpgroupWaitLowering, SetMaxNRegLowering,
               FenceProxyAsyncLowering, TmaStoreWaitLowering>(
      converter, patterns.getContext());
  target.addIllegalOp<MBarrierInitOp, MBarrierArriveOp, MBarrierWaitOp,
                      WarpgroupMmaOp, WarpgroupWaitOp, SetMaxNRegOp,
                      FenceProxyAsyncOp, TmaStoreWaitOp>();
}
