//===- Hopper.h - the builder's sm_90a tile ops -----------------*- C++ -*-===//
//
// TMA tensor maps, mbarriers, warpgroup MMA and register reallocation for
// kernels written with the C++ builder (include/Kaio/Builder/Builder.h),
// one call per kaio op of KaioHopperOps.td:
//
//   auto ma = tensorMapParam<f16>(k, {128, 64}, 128, "a_map");
//   Shared<f16> as = k.shared<f16>({512, 64}, swizzle128());
//   MBarriers full = mbarriers(k, 4);
//   full.arriveExpectTx(s, 16384);
//   tmaLoad(ma, {row0, k0}, as, s * 128, full, s);
//   full.wait(s, phase);
//   Frag d = warpgroupMma(as, s * 128, bs, s * 128, acc);
//   Frag r = warpgroupWait(d);
//
// Errors the builder can see (a bad tensor-map type) are located
// diagnostics; the rest is the verifiers' (ModuleBuilder::finish).
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_BUILDER_HOPPER_H
#define KAIO_BUILDER_HOPPER_H

#include "Kaio/Builder/Builder.h"

namespace kaio::builder {

/// A TMA tensor map kernel parameter (!kaio.tensor_map).
class TensorMap : public AnyValue {
public:
  using AnyValue::AnyValue;
};

/// A shared array of mbarriers (a 1-D i64 tile), one per element.
class MBarriers : public AnyValue {
public:
  using AnyValue::AnyValue;
  /// Barrier `i` expects `count` arrivals per phase (kaio.mbarrier_init);
  /// one thread initialises, a barrier() must follow.
  void init(Index i, Index count, SrcLoc loc = SrcLoc::current()) const;
  /// The calling thread arrives on barrier `i`.
  void arrive(Index i, SrcLoc loc = SrcLoc::current()) const;
  /// Arrives and raises the bytes the phase waits for (TMA boxes).
  void arriveExpectTx(Index i, Index bytes,
                      SrcLoc loc = SrcLoc::current()) const;
  /// Waits until the phase of this parity (0 or 1) of barrier `i` has
  /// completed.
  void wait(Index i, Index parity, SrcLoc loc = SrcLoc::current()) const;
};

/// How warpgroupMma reads B from its tile: N-major (rows of K, in blocks of
/// the tile's width: a row-major K x N matrix, as TMA boxes land) or
/// K-major (the tile holds B's transpose, N rows of K: attention's K).
enum class BMajor : uint8_t { N, K };

namespace detail {
mlir::Value tensorMapParam(KernelBuilder &k, ScalarId elem,
                           llvm::ArrayRef<int64_t> box, unsigned swizzle,
                           llvm::StringRef name, SrcLoc loc);
mlir::Value mbarriers(KernelBuilder &k, int64_t count, SrcLoc loc);
void tmaLoad(KernelState *st, mlir::Value map,
             llvm::ArrayRef<mlir::Value> coords, mlir::Value dst,
             mlir::Value row, mlir::Value bars, mlir::Value index, SrcLoc loc);
/// `transposedAK`: A's transpose in `a` and the product's K.
mlir::Value warpgroupMma(KernelState *st, mlir::Value a, mlir::Value aRow,
                         std::optional<int64_t> transposedAK, mlir::Value b,
                         mlir::Value bRow, bool transposeB, mlir::Value acc,
                         SrcLoc loc);
mlir::Value warpgroupWait(KernelState *st, mlir::Value acc, unsigned pending,
                          SrcLoc loc);
void tmaStore(KernelState *st, mlir::Value src, mlir::Value row,
              mlir::Value map, llvm::ArrayRef<mlir::Value> coords, SrcLoc loc);
} // namespace detail

/// The 128-byte hardware swizzle (Swizzle<3, 4, 3>) of TMA boxes and wgmma
/// operands with 128-byte rows (64 f16); swizzle64() and swizzle32() for
/// 64- and 32-byte rows.
inline TileLayout swizzle128() { return {MatrixOrder::row_major, 0, 3, 4, 3}; }
inline TileLayout swizzle64() { return {MatrixOrder::row_major, 0, 2, 4, 3}; }
inline TileLayout swizzle32() { return {MatrixOrder::row_major, 0, 1, 4, 3}; }

/// Declares the next kernel parameter as a tensor map of T elements whose
/// box is `box` (outermost first) and shared-memory swizzle `swizzle` bytes
/// (0, 32, 64, 128): what the host's map must be.
template <class T>
TensorMap tensorMapParam(KernelBuilder &k, llvm::ArrayRef<int64_t> box,
                         unsigned swizzle, llvm::StringRef name = "",
                         SrcLoc loc = SrcLoc::current()) {
  return TensorMap(k.state(),
                   detail::tensorMapParam(k, detail::ElemTraits<T>::id, box,
                                          swizzle, name, loc));
}

/// `count` mbarriers in shared memory.
inline MBarriers mbarriers(KernelBuilder &k, int64_t count,
                           SrcLoc loc = SrcLoc::current()) {
  return MBarriers(k.state(), detail::mbarriers(k, count, loc));
}

/// The calling thread copies the map's box at `coords` (outermost first)
/// into the rows of `dst` from `row`, completing on barrier `bar` of `bars`
/// (kaio.tma_load).
template <class T>
void tmaLoad(const TensorMap &map, std::initializer_list<Index> coords,
             const Shared<T> &dst, Index row, const MBarriers &bars, Index bar,
             SrcLoc loc = SrcLoc::current()) {
  detail::KernelState *st = map.state();
  llvm::SmallVector<mlir::Value, 5> values;
  for (const Index &c : coords)
    values.push_back(c.materialize(st));
  detail::tmaLoad(st, map.raw(), values, dst.raw(), row.materialize(st),
                  bars.raw(), bar.materialize(st), loc);
}

/// acc + A * B on a warpgroup (kaio.warpgroup_mma): A the 64 rows of `a`
/// from `aRow`, B from the rows of `b` from `bRow`. `acc` is each warp's
/// 16 x N accumulator tile (FragTile{1, N / 8}); the result is in flight
/// until warpgroupWait.
template <class T>
Frag warpgroupMma(const Shared<T> &a, Index aRow, const Shared<T> &b,
                  Index bRow, const Frag &acc, BMajor major = BMajor::N,
                  SrcLoc loc = SrcLoc::current()) {
  detail::KernelState *st = acc.state();
  return Frag(st, detail::warpgroupMma(st, a.raw(), aRow.materialize(st),
                                       std::nullopt, b.raw(),
                                       bRow.materialize(st),
                                       major == BMajor::K, acc.raw(), loc));
}
/// The same with `a` holding A's transpose (M-major, as a column-major
/// A's TMA boxes land: the warpgroup's 64 columns of M in blocks of the
/// tile's width, each `k` rows from `aRow`); `k` is the product's K.
template <class T>
Frag warpgroupMmaTransposedA(const Shared<T> &a, Index aRow, int64_t k,
                             const Shared<T> &b, Index bRow, const Frag &acc,
                             BMajor major = BMajor::N,
                             SrcLoc loc = SrcLoc::current()) {
  detail::KernelState *st = acc.state();
  return Frag(st, detail::warpgroupMma(st, a.raw(), aRow.materialize(st), k,
                                       b.raw(), bRow.materialize(st),
                                       major == BMajor::K, acc.raw(), loc));
}
/// The same with A in registers: each warp's 16 x K A fragment tile
/// (FragTile{1, K / 16}; Frag::toOperand of an accumulator, or
/// Shared::loadFragment).
template <class T>
Frag warpgroupMma(const Frag &a, const Shared<T> &b, Index bRow,
                  const Frag &acc, BMajor major = BMajor::N,
                  SrcLoc loc = SrcLoc::current()) {
  detail::KernelState *st = acc.state();
  return Frag(st, detail::warpgroupMma(st, a.raw(), mlir::Value(),
                                       std::nullopt, b.raw(),
                                       bRow.materialize(st),
                                       major == BMajor::K, acc.raw(), loc));
}

/// Waits for every warpgroupMma of this warpgroup; returns `acc` readable.
inline Frag warpgroupWait(const Frag &acc, SrcLoc loc = SrcLoc::current()) {
  return Frag(acc.state(),
              detail::warpgroupWait(acc.state(), acc.raw(), 0, loc));
}
/// Waits until at most `pending` warpgroupMma groups are in flight.
void warpgroupWait(KernelBuilder &k, unsigned pending,
                   SrcLoc loc = SrcLoc::current());

/// The calling thread copies the rows of `src` from `row` to the map's box
/// at `coords` (kaio.tma_store), one bulk async-group. The writers of the
/// tile first fenceProxyAsync and synchronise with this thread.
template <class T>
void tmaStore(const Shared<T> &src, Index row, const TensorMap &map,
              std::initializer_list<Index> coords,
              SrcLoc loc = SrcLoc::current()) {
  detail::KernelState *st = map.state();
  llvm::SmallVector<mlir::Value, 5> values;
  for (const Index &c : coords)
    values.push_back(c.materialize(st));
  detail::tmaStore(st, src.raw(), row.materialize(st), map.raw(), values, loc);
}
/// Waits until at most `pending` of this thread's TMA stores still read
/// their tiles (kaio.tma_store_wait).
void tmaStoreWait(KernelBuilder &k, unsigned pending,
                  SrcLoc loc = SrcLoc::current());
/// Makes this thread's shared-memory writes visible to TMA
/// (kaio.fence_proxy_async).
void fenceProxyAsync(KernelBuilder &k, SrcLoc loc = SrcLoc::current());

/// setmaxnreg: give registers back (RegisterAction::dec) or take them.
void setMaxNReg(KernelBuilder &k, RegisterAction action, unsigned count,
                SrcLoc loc = SrcLoc::current());

} // namespace kaio::builder

#endif // KAIO_BUILDER_HOPPER_H
