//===- LowerAsyncCopies.cpp - kaio.async_copy to cp.async -----------------===//
//
// kaio-lower-tiles' copy patterns: a tile copy from global memory becomes
// straight-line cp.async (16-byte chunks where the tile and source allow)
// with hoisted addresses, one commit group per copy; kaio.async_wait waits
// for groups.
//
//===----------------------------------------------------------------------===//

#include "TileEmitter.h"
#include "TilePatterns.h"

#include "Kaio/Dialect/Kaio/IR/KaioOps.h"
#include "Kaio/Dialect/PTX/IR/PTXOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

#include <numeric>

using namespace mlir;
using namespace kaio;

namespace {

/// Copies needing more rounds of the whole block than this keep a loop.
constexpr int64_t kMaxUnrolledCopyRounds = 16;

struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmemType tile = op.getDst().getType();
    if (!tile.getLayout())
      return rewriter.notifyMatchFailure(op, "tile has no layout");
    Location loc = op.getLoc();
    Emitter e(rewriter, loc);
    Type elem = tile.getElementType();
    int64_t eb = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
    // The tile rows filled: [dstRow0, dstRow0 + tileRows).
    auto [dstRow0, tileRows] = op.getDstRowRange();
    int64_t tileCols = tile.getShape()[1];
    int64_t rowBytes = tileCols * eb;
    // A chunk must divide the row and keep every row's start in shared
    // memory aligned: the padded row stride counts too.
    int64_t strideBytes = tile.getRowStride() * eb;
    int64_t chunk = std::gcd(std::gcd(rowBytes, strideBytes), int64_t(16));
    // A swizzle keeps runs of 2^base bytes together: chunks stay inside one.
    if (tile.getLayout().isSwizzled())
      chunk = std::gcd(chunk, int64_t(1) << tile.getLayout().getSwizzleBase());
    if (chunk < 4 || chunk < eb)
      return rewriter.notifyMatchFailure(
          op, "tile rows are not 4-byte aligned in shared memory");
    int64_t perChunk = chunk / eb;
    int64_t chunksPerRow = rowBytes / chunk;
    int64_t total = tileRows * chunksPerRow;

    // cp.async needs chunk-aligned global addresses: the base, the leading
    // dimension and the starting column must all keep rows aligned. An
    // `aligned` copy promises they do.
    Value src = op.getSrc();
    Value aligned;
    auto kernelOp = op->getParentOfType<KernelOp>();
    bool promisedAligned =
        op.getAligned() ||
        (kernelOp && kernelOp->hasAttr(KaioDialect::kAlignedCopiesAttrName));
    if (!promisedAligned) {
      Value base =
          PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), src);
      Value chunkI64 = e.i64(chunk);
      auto isZero = [&](Value v) {
        return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                     v, e.i64(0));
      };
      aligned = isZero(arith::RemUIOp::create(rewriter, loc, base, chunkI64));
      aligned = e.andI(aligned,
                       isZero(arith::RemUIOp::create(
                           rewriter, loc, e.mul(e.ext(op.getLd()), e.i64(eb)),
                           chunkI64)));
      aligned = e.andI(aligned,
                       isZero(arith::RemUIOp::create(
                           rewriter, loc, e.mul(e.ext(op.getCol()), e.i64(eb)),
                           chunkI64)));
    }

    // Chunk `idx` of the tile: row idx / chunksPerRow, chunk idx %
    // chunksPerRow of it. Where and which chunk depend on the thread only,
    // so they are computed outside `guard` (if any), where LICM can hoist
    // them out of the caller's K loop.
    struct Chunk {
      Value idx, guard, r, tileCol, dstAddr;
    };
    auto planChunk = [&](Value idx, Value guard) {
      Value r = arith::DivUIOp::create(rewriter, loc, idx, e.i32(chunksPerRow));
      Value cc = arith::RemUIOp::create(rewriter, loc, idx,
                                        e.i32(chunksPerRow));
      Value tileCol = e.mul(cc, e.i32(perChunk));
      Value dstAddr = e.tileAddress(op.getDst(), r, tileCol, dstRow0, 0);
      return Chunk{idx, guard, r, tileCol, dstAddr};
    };
    auto copyChunk = [&](const Chunk &plan) {
      Value guard = plan.guard, r = plan.r, tileCol = plan.tileCol,
            dstAddr = plan.dstAddr;
      OpBuilder::InsertionGuard g1(rewriter);
      if (guard) {
        auto guardIf = scf::IfOp::create(rewriter, loc, guard, /*else=*/false);
        rewriter.setInsertionPointToStart(guardIf.thenBlock());
      }
      Value gr = e.add(op.getRow(), r);
      Value gc = e.add(op.getCol(), tileCol);
      Value rowOk = e.lt(gr, op.getRows());
      // Fast path: one cp.async of `chunk` bytes, zero filled past the edge.
      auto emitCpAsync = [&] {
        Value left = arith::SubIOp::create(rewriter, loc, op.getCols(), gc);
        Value valid = arith::MaxSIOp::create(
            rewriter, loc, e.i32(0),
            arith::MinSIOp::create(rewriter, loc, left, e.i32(perChunk)));
        valid = arith::SelectOp::create(rewriter, loc, rowOk, valid, e.i32(0));
        Value srcBytes = e.mul(valid, e.i32(eb));
        Value any = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::sgt, valid,
                                          e.i32(0));
        // Out-of-matrix chunks read nothing; point them at the base.
        Value index = arith::SelectOp::create(
            rewriter, loc, any,
            e.add(e.mul(e.ext(gr), e.ext(op.getLd())), e.ext(gc)), e.i64(0));
        Value srcAddr = PtrToIntOp::create(
            rewriter, loc, rewriter.getI64Type(),
            PtrAddOp::create(rewriter, loc, src.getType(), src, index));
        ptx::CpAsyncOp::create(
            rewriter, loc,
            chunk == 16 ? ptx::CpAsyncCache::cg : ptx::CpAsyncCache::ca,
            chunk, dstAddr, /*dst_offset=*/0, srcAddr, srcBytes, Value(),
            false);
      };
      if (!aligned) {
        emitCpAsync();
        return;
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, aligned, /*else=*/true);
      {
        OpBuilder::InsertionGuard g2(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        emitCpAsync();
      }
      // Slow path: element by element, synchronously.
      OpBuilder::InsertionGuard g2(rewriter);
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      Value zero = isa<FloatType>(elem)
                       ? Value(arith::ConstantOp::create(
                             rewriter, loc, rewriter.getFloatAttr(elem, 0)))
                       : Value(arith::ConstantOp::create(
                             rewriter, loc, rewriter.getIntegerAttr(elem, 0)));
      for (int64_t k = 0; k < perChunk; ++k) {
        Value c = e.add(gc, e.i32(k));
        Value ok = e.andI(rowOk, e.lt(c, op.getCols()));
        Value index = arith::SelectOp::create(
            rewriter, loc, ok,
            e.add(e.mul(e.ext(gr), e.ext(op.getLd())), e.ext(c)), e.i64(0));
        Value v =
            kaio::LoadOp::create(rewriter, loc, elem, src, index, ok, zero);
        SharedStoreOp::create(rewriter, loc, v, op.getDst(),
                              ValueRange{e.add(r, e.i32(dstRow0)),
                                         e.add(tileCol, e.i32(k))});
      }
    };

    // The block's threads take chunks tid, tid + T, ... for the kernel's
    // block size T: straight-line code, the last round guarded when T does
    // not divide the chunk count. The kernel then needs exactly T threads.
    auto kernel = op->getParentOfType<KernelOp>();
    int64_t threads = kernel ? kernel.getNumThreads() : 0;
    int64_t rounds = threads ? (total + threads - 1) / threads : 0;
    if (!threads || rounds > kMaxUnrolledCopyRounds) {
      auto [tid, nthreads] = e.linearThread();
      auto loop = scf::ForOp::create(rewriter, loc, tid, e.i32(total),
                                     nthreads);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      copyChunk(planChunk(loop.getInductionVar(), Value()));
    } else {
      kernel->setAttr(KaioDialect::kExactBlockSizeAttrName,
                      rewriter.getUnitAttr());
      // Which chunks a thread copies and where they land depend on the
      // thread only: planned here, outside any branch, so that LICM moves
      // them out of a K loop.
      Value tid = e.staticLinearThread(kernel.getBlockSize());
      // When the block covers whole rows per round, round i copies the
      // chunk of round 0 rowsPerRound * i rows further down: its shared
      // address is round 0's plus a constant where the layout allows, and
      // its source round 0's plus i row steps (one register for all).
      bool uniformRounds = threads % chunksPerRow == 0;
      int64_t rowsPerRound = threads / chunksPerRow;
      SmallVector<Chunk> plans;
      for (int64_t i = 0; i < rounds; ++i) {
        Value idx = i ? e.add(tid, e.i32(i * threads)) : tid;
        Value guard;
        if ((i + 1) * threads > total)
          guard = arith::CmpIOp::create(rewriter, loc,
                                        arith::CmpIPredicate::ult, idx,
                                        e.i32(total));
        if (i == 0 || !uniformRounds) {
          plans.push_back(planChunk(idx, guard));
          continue;
        }
        const Chunk &first = plans.front();
        int64_t dRow = i * rowsPerRound;
        plans.push_back(Chunk{idx, guard, e.add(first.r, e.i32(dRow)),
                              first.tileCol,
                              e.tileAddress(op.getDst(), first.r,
                                            first.tileCol, dstRow0 + dRow,
                                            0)});
      }
      // Interior tiles (the whole tile inside the matrix, rows aligned) —
      // all but the edge blocks of a large matrix — take full cp.async
      // chunks with no bounds arithmetic: the source is the tile's corner
      // plus a per-thread offset that does not change along K.
      Value inside = e.andI(
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                e.add(op.getRow(), e.i32(tileRows)),
                                op.getRows()),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                e.add(op.getCol(), e.i32(tileCols)),
                                op.getCols()));
      if (aligned)
        inside = e.andI(inside, aligned);
      // Byte offsets of the thread's chunks from the corner: they depend on
      // the thread only (hoisted out of a K loop by LICM), so each chunk
      // costs one 64-bit add. The corner's address is computed outside the
      // branch, where its row part (row x ld, fixed along K for A) can be
      // hoisted too.
      // With uniform rounds only round 0's offset and the row step are
      // kept; the chunks' addresses chain from the corner's.
      SmallVector<Value> srcOffsetBytes;
      for (const Chunk &plan : plans) {
        if (uniformRounds && !srcOffsetBytes.empty())
          break;
        srcOffsetBytes.push_back(
            e.mul(e.add(e.mul(e.ext(plan.r), e.ext(op.getLd())),
                        e.ext(plan.tileCol)),
                  e.i64(eb)));
      }
      Value rowStep =
          uniformRounds
              ? e.mul(e.ext(op.getLd()), e.i64(rowsPerRound * eb))
              : Value();
      Value corner = e.add(e.mul(e.ext(op.getRow()), e.ext(op.getLd())),
                           e.ext(op.getCol()));
      Value cornerAddr = PtrToIntOp::create(
          rewriter, loc, rewriter.getI64Type(),
          PtrAddOp::create(rewriter, loc, src.getType(), src, corner));
      auto split = scf::IfOp::create(rewriter, loc, inside, /*else=*/true);
      {
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(split.thenBlock());
        Value prev;
        for (auto [i, plan] : llvm::enumerate(plans)) {
          Value srcAddr = uniformRounds && i
                              ? e.add(prev, rowStep)
                              : e.add(cornerAddr, srcOffsetBytes[i]);
          prev = srcAddr;
          OpBuilder::InsertionGuard g2(rewriter);
          if (plan.guard) {
            auto guardIf =
                scf::IfOp::create(rewriter, loc, plan.guard, /*else=*/false);
            rewriter.setInsertionPointToStart(guardIf.thenBlock());
          }
          ptx::CpAsyncOp::create(
              rewriter, loc,
              chunk == 16 ? ptx::CpAsyncCache::cg : ptx::CpAsyncCache::ca,
              chunk, plan.dstAddr, /*dst_offset=*/0, srcAddr, Value(),
              Value(), false);
        }
      }
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(split.elseBlock());
      for (const Chunk &plan : plans)
        copyChunk(plan);
    }
    ptx::CpAsyncCommitGroupOp::create(rewriter, loc, Value(), false);
    rewriter.replaceOp(op, e.i32(0));
    return success();
  }
};

struct AsyncWaitLowering : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t pending = op.getPending() ? *op.getPending() : 0;
    ptx::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), pending, Value(),
                                    false);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kaio::populateAsyncCopyPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     ConversionTarget &target) {
  patterns.add<AsyncCopyLowering, AsyncWaitLowering>(converter,
                                                     patterns.getContext());
  target.addIllegalOp<AsyncCopyOp, AsyncWaitOp>();
}
