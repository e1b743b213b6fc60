//===- HopperAttentionSupport.h - pieces the sm_90a attention kernels share -===//
//
// The forward (HopperAttentionKernels.cpp) and the backward's dK/dV kernel
// (HopperAttentionBackwardKernels.cpp) are both written as ptx-dialect
// text: this header holds what they write alike, namely packed-sequence
// bounds, TMA loads of [rows x head dim] tiles, the two wgmma chains (both
// operands from 128-byte-swizzled shared memory; A from registers) and the
// repacking of an accumulator as A fragments.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_LIB_OPS_KERNELS_HOPPERATTENTIONSUPPORT_H
#define KAIO_LIB_OPS_KERNELS_HOPPERATTENTIONSUPPORT_H

#include "PtxWriter.h"

#include <string>
#include <vector>

namespace kaio::ops::kernels::hopper_attention {

/// "t, t, ..." (`n` times): the types of `n` values.
inline std::string repeatedTypes(unsigned n, llvm::StringRef t) {
  std::string s;
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", " : "") + t.str();
  return s;
}
/// "%p0: t, %p1: t, ...": `n` block arguments named after `prefix`.
inline std::string blockArgs(llvm::StringRef prefix, unsigned n,
                             llvm::StringRef t) {
  std::string s;
  for (unsigned i = 0; i < n; ++i)
    s += llvm::formatv("{0}%{1}{2}: {3}", i ? ", " : "", prefix, i, t).str();
  return s;
}
/// {"%p0", "%p1", ...}: the names blockArgs(prefix, n, ...) declares.
inline std::vector<std::string> argNames(llvm::StringRef prefix, unsigned n) {
  std::vector<std::string> v;
  for (unsigned i = 0; i < n; ++i)
    v.push_back("%" + prefix.str() + std::to_string(i));
  return v;
}

/// Where batch `batch`'s sequence starts and how long it is: rows
/// [cu[batch], cu[batch + 1]) of a batch-1 tensor when `packed` (the i1
/// "cu is not null"), else [0, seq).
inline void sequenceBounds(PtxWriter &w, const std::string &cu,
                           const std::string &seq, const std::string &batch,
                           const std::string &packed, std::string &start,
                           std::string &length) {
  std::string at = w.add64(cu, w.let("ptx.mul wide u32 " + batch + ", " +
                                     w.i32(4) + " : (i32, i32) -> i64"));
  std::string begin =
      w.let("ptx.ld if " + packed + " global s32 [" + at + "] : i64 -> i32");
  std::string end = w.let("ptx.ld if " + packed + " global s32 [" + at +
                          " + 4] : i64 -> i32");
  start = w.let("ptx.selp b32 " + begin + ", " + w.i32(0) + ", " + packed +
                " : i32");
  length = w.let("ptx.selp b32 " +
                 w.let("ptx.sub s32 " + end + ", " + begin + " : i32") + ", " +
                 seq + ", " + packed + " : i32");
}

/// What every sm_90a attention kernel computes first: its thread and
/// warpgroup, the block's batch (grid z), this batch's sequences (packed:
/// %cu_q / %cu_k not null) and the batch coordinate of its TMA boxes (0
/// when packed).
struct BlockSetup {
  std::string tid, wg, batch, packed, qStart, seqQ, kStart, seqK, tmaBatch;
};
inline BlockSetup blockSetup(PtxWriter &w) {
  BlockSetup b;
  b.tid = w.let("ptx.sreg tid.x : i32");
  b.wg = w.shr(b.tid, 7);
  b.batch = w.let("ptx.sreg ctaid.z : i32");
  b.packed = w.let("ptx.setp ne u64 %cu_q, " + w.i64(0) + " : i64");
  sequenceBounds(w, "%cu_q", "%seq_q", b.batch, b.packed, b.qStart, b.seqQ);
  sequenceBounds(w, "%cu_k", "%seq_k", b.batch, b.packed, b.kStart, b.seqK);
  b.tmaBatch = w.let("ptx.selp b32 " + w.i32(0) + ", " + b.batch + ", " +
                     b.packed + " : i32");
  return b;
}
/// The query block of a kernel whose grid's x walks query blocks, in
/// reverse launch order: under a causal mask the last blocks see the most
/// keys, and launching them first leaves the light ones for the last wave
/// (FlashAttention-3's scheduler does the same).
inline std::string reversedBlockX(PtxWriter &w) {
  std::string block = w.let("ptx.sreg ctaid.x : i32");
  std::string blocks = w.let("ptx.sreg nctaid.x : i32");
  return w.let("ptx.sub s32 " + w.add32(blocks, w.i32(-1)) + ", " + block +
               " : i32");
}

/// A consumer thread's place: its warpgroup g (warpgroup 1 + g of the
/// block), lane, warp in the warpgroup, quad (lane / 4: rows quad and
/// quad + 8 of the warp's 16 in an accumulator) and pairCol (2 (lane % 4):
/// its columns pairCol, + 1 of every 8), and whether it leads the
/// warpgroup.
struct ConsumerLanes {
  std::string g, lane, warp, quad, pairCol, leader;
};
inline ConsumerLanes consumerLanes(PtxWriter &w, const BlockSetup &b) {
  ConsumerLanes c;
  c.g = w.add32(b.wg, w.i32(-1));
  c.lane = w.let("ptx.and b32 " + b.tid + ", " + w.i32(31) + " : i32");
  std::string lane128 =
      w.let("ptx.and b32 " + b.tid + ", " + w.i32(127) + " : i32");
  c.warp = w.shr(lane128, 5);
  c.quad = w.shr(c.lane, 2);
  c.pairCol = w.mul32(
      w.let("ptx.and b32 " + c.lane + ", " + w.i32(3) + " : i32"), w.i32(2));
  c.leader = w.setp("eq", lane128, w.i32(0));
  return c;
}

/// Ring position `it` of a `stages`-deep ring (a power of two): its
/// buffer's index, its full and empty mbarriers (8 bytes apart from
/// full0 / empty0) and the parity of the phase it waits for.
struct RingSlot {
  std::string index, parity, full, empty;
};
inline RingSlot ringSlot(PtxWriter &w, const std::string &it, unsigned stages,
                         const std::string &full0, const std::string &empty0) {
  RingSlot s;
  s.index = w.let("ptx.and b32 " + it + ", " + w.i32(stages - 1) + " : i32");
  std::string round = w.let("ptx.shr u32 " + it + ", " +
                            w.i32(llvm::Log2_32(stages)) +
                            " : (i32, i32) -> i32");
  s.parity = w.let("ptx.and b32 " + round + ", " + w.i32(1) + " : i32");
  std::string barOff = w.mul32(s.index, w.i32(8));
  s.full = w.add32(full0, barOff);
  s.empty = w.add32(empty0, barOff);
  return s;
}
/// Initialises (by the thread where `first` holds) `stages` full
/// mbarriers from full0 expecting `fullCount` arrivals and as many empty
/// ones from empty0 expecting `emptyCount`.
inline void initRing(PtxWriter &w, const std::string &first,
                     const std::string &full0, const std::string &empty0,
                     unsigned stages, unsigned fullCount,
                     unsigned emptyCount) {
  for (unsigned s = 0; s < stages; ++s) {
    w.op("ptx.mbarrier_init if " + first + " [" +
         w.add32(full0, w.i32(8 * s)) + "], " + w.i32(fullCount) + " : i32");
    w.op("ptx.mbarrier_init if " + first + " [" +
         w.add32(empty0, w.i32(8 * s)) + "], " + w.i32(emptyCount) +
         " : i32");
  }
}

/// Waits (labels ^`tag`_wait, then ^`tag`_issue) until slot `s`'s buffer is
/// free: its empty barrier has completed the phase before the one its
/// consumers are due to complete (on a fresh barrier that phase counts as
/// done, so the first round does not wait).
inline void waitSlotFree(PtxWriter &w, const RingSlot &s,
                         llvm::StringRef tag) {
  std::string freeParity =
      w.let("ptx.xor b32 " + s.parity + ", " + w.i32(1) + " : i32");
  w.waitParity(s.empty, freeParity, (tag + "_wait").str(),
               (tag + "_issue").str());
}
/// The barriers of a kernel with one-shot tiles and a `stages`-deep ring,
/// initialised by thread 0 (`first`) and fenced, the block synchronised:
/// `once` (one arrival: the tiles loaded once), then per stage a full
/// barrier (`fullCount` arrivals) from `full0` and an empty one (one
/// arrival per consumer warpgroup, two) from `empty0`, 8 bytes apart.
struct RingBarriers {
  std::string once, full0, empty0;
};
inline RingBarriers initOnceAndRing(PtxWriter &w, const std::string &bars,
                                    const std::string &first,
                                    unsigned stages, unsigned fullCount) {
  RingBarriers r;
  r.once = bars;
  r.full0 = w.add32(bars, w.i32(8));
  r.empty0 = w.add32(bars, w.i32(8 * (1 + stages)));
  w.op("ptx.mbarrier_init if " + first + " [" + r.once + "], " + w.i32(1) +
       " : i32");
  initRing(w, first, r.full0, r.empty0, stages, fullCount, 2);
  w.op("ptx.fence_mbarrier_init");
  w.op("ptx.bar_sync 0");
  return r;
}

/// Query row `row` (of sequence b's, from qStart) of head `head`'s lse
/// and delta (%lse, %delta: f32 at batch * %row_batch + head * %row_head
/// + qStart + row) as the backward uses them: the lse negated and in log2
/// units, -inf past seq_q or where the row saw no key (lse -inf), so that
/// P = exp2(s scale_log2 + it) = 0 there; delta, 0 past seq_q.
struct RowStats {
  std::string negLse, delta;
};
inline RowStats loadRowStats(PtxWriter &w, const BlockSetup &b,
                             const std::string &head,
                             const std::string &row) {
  std::string inside = w.setp("lt", row, b.seqQ, "s32");
  std::string index = w.add64(
      w.add64(w.let("ptx.mul wide u32 " + b.tmaBatch +
                    ", %row_batch : (i32, i32) -> i64"),
              w.let("ptx.mul wide u32 " + head +
                    ", %row_head : (i32, i32) -> i64")),
      w.let("ptx.cvt u64 u32 " + w.add32(b.qStart, row) + " : i32 -> i64"));
  std::string bytes = w.let("ptx.shl b64 " + index + ", " + w.i32(2) +
                            " : (i64, i32) -> i64");
  std::string lse = w.let("ptx.ld if " + inside + " global nc f32 [" +
                          w.add64("%lse", bytes) + "] : i64 -> f32");
  std::string delta = w.let("ptx.ld if " + inside + " global nc f32 [" +
                            w.add64("%delta", bytes) + "] : i64 -> f32");
  std::string negInf = w.f32("0xFF800000");
  std::string seen =
      w.let("ptx.setp neu f32 " + lse + ", " + negInf + " : f32");
  seen = w.let("ptx.and pred " + seen + ", " + inside + " : i1");
  std::string scaled =
      w.let("ptx.mul rn f32 " + w.let("ptx.neg f32 " + lse + " : f32") +
            ", " + w.f32("1.44269502") + " : f32");
  RowStats r;
  r.negLse = w.let("ptx.selp f32 " + scaled + ", " + negInf + ", " + seen +
                   " : f32");
  r.delta = w.let("ptx.selp f32 " + delta + ", " + w.f32("0.000000e+00") +
                  ", " + inside + " : f32");
  return r;
}

/// The attention window's kernel-wide values: query i sees keys
/// [i + offset - window_left, i + offset + window_right] (a negative side:
/// unbounded, hasLeft / hasRight false), offset = seq_k - seq_q when
/// %bottom_right is set, else 0.
struct Window {
  std::string offset, hasLeft, hasRight;
};
inline Window windowOf(PtxWriter &w, const std::string &seqQ,
                       const std::string &seqK) {
  Window win;
  std::string zero = w.i32(0);
  std::string bottomRight = w.setp("ne", "%bottom_right", zero);
  win.offset = w.let(
      "ptx.selp b32 " + w.let("ptx.sub s32 " + seqK + ", " + seqQ + " : i32") +
      ", " + zero + ", " + bottomRight + " : i32");
  win.hasRight = w.setp("ge", "%window_right", zero, "s32");
  win.hasLeft = w.setp("ge", "%window_left", zero, "s32");
  return win;
}

/// The keys query row `row` sees: [lo, hi), hi at most seq_k (a block's
/// padding is zeros or, packed, the next sequence's keys).
struct KeySpan {
  std::string lo, hi;
};
inline KeySpan visibleKeys(PtxWriter &w, const Window &win,
                           const std::string &row, const std::string &seqK) {
  KeySpan k;
  std::string diagonal = w.add32(row, win.offset);
  std::string right = w.let(
      "ptx.min s32 " + w.add32(w.add32(diagonal, "%window_right"), w.i32(1)) +
      ", " + seqK + " : i32");
  k.hi = w.let("ptx.selp b32 " + right + ", " + seqK + ", " + win.hasRight +
               " : i32");
  k.lo = w.let("ptx.selp b32 " +
               w.let("ptx.sub s32 " + diagonal + ", %window_left : i32") +
               ", " + w.i32(0) + ", " + win.hasLeft + " : i32");
  return k;
}

/// The blocks of 2^shift positions among the first `total` that hold a
/// position in [first, last] (signed; first bounds them only where
/// `hasFirst` holds, last where `hasLast` does): [begin, begin + count).
struct BlockRange {
  std::string begin, count;
};
inline BlockRange blockRange(PtxWriter &w, const std::string &first,
                             const std::string &hasFirst,
                             const std::string &last,
                             const std::string &hasLast,
                             const std::string &total, unsigned shift) {
  std::string zero = w.i32(0);
  auto blockOf = [&](const std::string &position) {
    return w.let("ptx.shr s32 " + position + ", " + w.i32(shift) +
                 " : (i32, i32) -> i32");
  };
  std::string begin = w.let(
      "ptx.selp b32 " +
      w.let("ptx.max s32 " + blockOf(first) + ", " + zero + " : i32") + ", " +
      zero + ", " + hasFirst + " : i32");
  std::string end = w.let("ptx.min s32 " + w.add32(blockOf(last), w.i32(1)) +
                          ", " + total + " : i32");
  end = w.let("ptx.selp b32 " + end + ", " + zero + ", " +
              w.setp("ge", last, zero, "s32") + " : i32");
  end = w.let("ptx.selp b32 " + end + ", " + total + ", " + hasLast +
              " : i32");
  BlockRange r;
  r.begin = begin;
  r.count = w.let(
      "ptx.max s32 " + w.let("ptx.sub s32 " + end + ", " + begin + " : i32") +
      ", " + zero + " : i32");
  return r;
}

/// The blocks of 2^keyShift keys that hold every key a query of [q0, q0 +
/// rows) sees: keys [q0 + offset - window_left, q0 + rows - 1 + offset +
/// window_right] below seq_k.
inline BlockRange keyBlocksOf(PtxWriter &w, const Window &win,
                              const std::string &q0, unsigned rows,
                              const std::string &seqK, unsigned keyShift) {
  std::string allBlocks =
      w.shr(w.add32(seqK, w.i32((1 << keyShift) - 1)), keyShift);
  std::string lastKey =
      w.add32(w.add32(w.add32(q0, w.i32(rows - 1)), win.offset),
              "%window_right");
  std::string firstKey = w.let("ptx.sub s32 " + w.add32(q0, win.offset) +
                               ", %window_left : i32");
  return blockRange(w, firstKey, win.hasLeft, lastKey, win.hasRight,
                    allBlocks, keyShift);
}

/// The TMA boxes of a [rows x headDim] tile of head `head` from row `row0`
/// of batch `batch` into `dst`: one box of 64 columns (128 bytes, rows x
/// 128 bytes in shared memory) per 64 columns, completing on `bar`.
inline void loadTile(PtxWriter &w, unsigned headDim, const std::string &dst,
                     const std::string &map, const std::string &row0,
                     const std::string &head, const std::string &batch,
                     unsigned rows, const std::string &bar) {
  for (unsigned a = 0; a < headDim / 64; ++a) {
    std::string to = w.add32(dst, w.i32(a * rows * 128));
    w.op("ptx.cp_async_bulk_tensor_load 4d [" + to + "], [" + map + ", {" +
         w.i32(64 * a) + ", " + head + ", " + row0 + ", " + batch + "}], [" +
         bar + "] : i32, i32");
  }
}

/// acc = A B^T issued and committed (not waited for): A an m64 x depth
/// operand from the shared tile whose descriptor is `aDesc` (its 64-column
/// atoms `aRows` rows apart), B the n x depth tile of `bDesc` (atoms
/// `bRows` rows apart), both K-major; depth / 16 k16 steps.
inline std::vector<std::string>
issueSharedProduct(PtxWriter &w, llvm::StringRef type, unsigned n,
                   unsigned depth, const std::string &aDesc, unsigned aRows,
                   const std::string &bDesc, unsigned bRows) {
  std::string fz = w.f32("0.000000e+00");
  std::vector<std::string> acc(n / 2, fz);
  for (unsigned kk = 0; kk < depth / 16; ++kk) {
    unsigned atom = kk / 4, step = kk % 4;
    std::string a = w.add64(aDesc, w.i64((atom * aRows * 128 + step * 32) / 16));
    std::string b = w.add64(bDesc, w.i64((atom * bRows * 128 + step * 32) / 16));
    std::string r = w.letMany(
        n / 2, llvm::formatv("ptx.wgmma_mma_async m64n{0}k16 f32 {1} {1} "
                             "{{{2}}, {3}, {4}{5} : f32",
                             n, type, joined(acc), a, b,
                             kk ? "" : " scale_d_imm 0")
                   .str());
    for (unsigned i = 0; i < n / 2; ++i)
      acc[i] = r + "#" + std::to_string(i);
  }
  w.op("ptx.wgmma_commit_group");
  return acc;
}

/// acc += A B issued and committed: A as register fragments (four i32 per
/// k16 step, accumulatorAsA's order), B the N-major tile of `bDesc` (n
/// columns; k16 step t at rows 16 t .. 16 t + 15).
inline std::vector<std::string>
issueRegisterProduct(PtxWriter &w, llvm::StringRef type, unsigned n,
                     std::vector<std::string> acc,
                     const std::vector<std::string> &aFrags,
                     const std::string &bDesc) {
  for (unsigned t = 0; t < aFrags.size() / 4; ++t) {
    std::vector<std::string> a(aFrags.begin() + 4 * t,
                               aFrags.begin() + 4 * t + 4);
    std::string b = w.add64(bDesc, w.i64(t * 16 * 128 / 16));
    std::string r = w.letMany(
        n / 2, llvm::formatv("ptx.wgmma_mma_async m64n{0}k16 f32 {1} {1} "
                             "{{{2}}, {{{3}}, {4} trans_b : f32, i32",
                             n, type, joined(acc), joined(a), b)
                   .str());
    for (unsigned i = 0; i < n / 2; ++i)
      acc[i] = r + "#" + std::to_string(i);
  }
  w.op("ptx.wgmma_commit_group");
  return acc;
}

/// An m64 x n f32 accumulator (n / 2 values a thread: element e is row
/// quad + 8 ((e / 2) % 2) of the warp's 16, column 8 (e / 4) + 2 (lane % 4)
/// + e % 2) converted to 16-bit pairs laid out as the A fragments of n / 16
/// k16 steps: columns 16 t .. 16 t + 15 are step t's.
inline std::vector<std::string>
accumulatorAsA(PtxWriter &w, llvm::StringRef type,
               const std::vector<std::string> &acc) {
  std::vector<std::string> frags;
  for (unsigned t = 0; t < acc.size() / 8; ++t)
    for (unsigned r = 0; r < 4; ++r) {
      unsigned e = 4 * (2 * t + r / 2) + 2 * (r % 2);
      frags.push_back(w.let("ptx.cvt_pack rn " + type.str() + "x2 " +
                            acc[e + 1] + ", " + acc[e] + " : i32"));
    }
  return frags;
}

/// Stores row half `h` (rows quad + 8 h) of an m64 x n f32 accumulator
/// whose elements are the block arguments `prefix`0 ... as 16-bit pairs:
/// columns 8 t + pairCol and + 1 at `rowAddress` + 16 t bytes, each value
/// times `scale` first (empty: as is), where `rowOk` holds.
inline void storeAccumulatorRow(PtxWriter &w, llvm::StringRef type,
                                llvm::StringRef prefix, unsigned n, unsigned h,
                                const std::string &rowAddress,
                                const std::string &rowOk,
                                const std::string &scale) {
  for (unsigned e = 0; e < n / 2; e += 2) {
    if ((e / 2) % 2 != h)
      continue;
    std::string lo = "%" + prefix.str() + std::to_string(e);
    std::string hi = "%" + prefix.str() + std::to_string(e + 1);
    if (!scale.empty()) {
      lo = w.let("ptx.mul rn f32 " + lo + ", " + scale + " : f32");
      hi = w.let("ptx.mul rn f32 " + hi + ", " + scale + " : f32");
    }
    std::string pair = w.let("ptx.cvt_pack rn " + type.str() + "x2 " + hi +
                             ", " + lo + " : i32");
    w.op("ptx.st if " + rowOk + " global b32 [" + rowAddress + " + " +
         std::to_string(2 * 8 * (e / 4)) + "], " + pair + " : i64, i32");
  }
}

} // namespace kaio::ops::kernels::hopper_attention

#endif // KAIO_LIB_OPS_KERNELS_HOPPERATTENTIONSUPPORT_H
