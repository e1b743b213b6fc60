//===- HopperGemmKernels.cpp - TMA + wgmma GEMM for sm_90a ----------------===//
//
// The warp-specialised Hopper GEMM, written at the ptx-dialect level until
// the kaio dialect has warpgroup tiles (issue 12): C (row-major, ldc; f32
// or 16-bit) = A (M x K) * B (K x N), f16 or bf16 inputs with A and B row-
// or column-major, or FP8 (e4m3, e5m2) or f32 (multiplied as tf32) inputs
// with A row-major and B column-major (wgmma reads 8-bit and tf32 operands
// K-major only); any leading
// dimension of 16-byte lines. K tiles are 128 bytes deep (64 16-bit or 128
// 8-bit or 32 32-bit elements), one wgmma per 32 bytes of K (k16, k32 or
// k8).
//
// A persistent block of three warpgroups walks the work units (unit =
// blockIdx.x, + gridDim.x, ...): unit u is BM x BN tile u % tiles of C (in
// groups of 8 tile rows, M fastest within a group, for L2 reuse) over the
// k tiles of split u / tiles, `k_tiles_per_split` each, its C
// `c_split_bytes` after the previous split's (the host's split K: f32
// partial sums that gemm_split_reduce adds; one split is the whole K):
//  - warpgroup 0 is the producer: it gives registers back (setmaxnreg.dec)
//    and one thread streams K tiles of A (BM x BK) and B (BK x BN, as BN/64
//    boxes of 64 columns) with TMA into a ring of `stages` shared buffers,
//    each guarded by a `full` mbarrier (arrival + transaction bytes) and an
//    `empty` one (one arrival per consumer warpgroup). It runs ahead into
//    the next tile while the consumers store the last one;
//  - warpgroups 1 and 2 are consumers (setmaxnreg.inc): each owns 64 rows of
//    the tile, waits for a stage, issues one wgmma m64nBNk16 (k32 for FP8)
//    per 32 bytes of the K tile, reading A and B from 128-byte-swizzled
//    shared memory through descriptors (a row-major A and a column-major B
//    are K-major: boxes of 128 bytes of K; the others MN-major: boxes of
//    64 M or N columns, read transposed),
//    keeps that group in flight while it waits for the previous one
//    (wgmma.wait_group 1) and frees the previous stage; FP8 sums are
//    promoted instead (hopperGemmPromotesSums): a K tile's wgmmas start
//    from zero, the group is waited for, its stage freed and its sums
//    added into f32 registers (128 x 128 tiles only);
//  - the epilogue stores each consumer's accumulators with bounds checks:
//    a plain result straight from registers (pairs of columns per store;
//    beta read beside them on 128-column tiles only: at 128 x 256 ptxas
//    batches the loads of C next to 128 live accumulators and spills), any
//    other (bias, activation, beta on wide tiles) through the staged
//    epilogue (writeFusedEpilogue); s8 inputs accumulate in s32.
// The `_c2` variant runs in clusters of two blocks along M: a unit is a
// pair of vertically adjacent tiles (the cluster walks the units, block
// rank r takes tile row 2 u + r), which read the same k tiles of B. Each
// block loads half of B's k tile and multicasts it to both, so B crosses
// from L2 once per pair: every block's full barrier expects the whole
// stage, its empty barrier the consumers of both blocks (each frees the
// stage in both, mbarrier.arrive.shared::cluster through mapa), and a
// cluster barrier after mbarrier.init and before exit keeps every block's
// barriers alive while the other may reach them.
// The ring position (stage, phase parity) runs on across tiles. TMA
// zero-fills rows and columns past M, N and K, so any shape works as long
// as A's and B's rows are 16-byte multiples (K, N multiples of 8).
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"

#include "Activation.h"
#include "PtxWriter.h"

#include "Kaio/Dialect/PTX/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace kaio::ops;
using namespace kaio::ops::kernels;


namespace {

/// The consumer's values the staged epilogue starts from.
struct EpilogueInputs {
  std::string tiles;   ///< the shared ring's address (staging follows it)
  std::string g;       ///< the consumer warpgroup (0, 1)
  std::string lane128; ///< the thread in its warpgroup
  std::string row0, col0; ///< the tile's origin in C
  std::string c;          ///< C's address (a split's partial sums)
  std::string readC;      ///< beta != 0
  std::string aligned;    ///< C's rows take 4-column vector stores
  std::string nextTile, nextIt; ///< where ^ctile continues
};

/// The staged epilogue, from block ^fused (the accumulators are %res<i>):
/// out = act(alpha * acc + beta * C + bias). Chunk by chunk of
/// kGemmStagingColumns columns, each consumer warpgroup writes its
/// accumulators to its staging buffer, then reads them back as 16 rows x 4
/// columns per pass (a thread: 4 consecutive columns of one row) and
/// finishes them: beta * C and the bias as scalar loads, the activation
/// (one copy of each formula, chosen by a uniform branch), and one 16-byte
/// (f32) or 8-byte (16-bit) store where the 4 columns are in C and its
/// rows aligned, else element by element. Named barriers 1 and 2 (128
/// threads) order each warpgroup's writes and reads.
void writeFusedEpilogue(PtxWriter &w, const HopperGemmConfig &c,
                        const EpilogueInputs &in) {
  const unsigned outBytes = getGemmElemBytes(c.out);
  const bool out16 = getGemmElemBytes(c.out) == 2;
  const char *outType = getGemmElemName(c.out);
  const unsigned inBytes = getGemmElemBytes(c.in);
  const unsigned ringBytes = c.stages * (c.blockM + c.blockN) * c.blockK *
                             inBytes;
  const unsigned chunks = c.blockN / kGemmStagingColumns;
  const unsigned rowBytes = kGemmStagingRowBytes;
  constexpr unsigned kPassRows = 16, kPasses = 64 / kPassRows;
  // Accumulators per thread in a chunk: 4 per 8 columns.
  constexpr unsigned kChunkAccs = kGemmStagingColumns / 2;
  auto names = [](const std::string &prefix) {
    std::vector<std::string> v;
    for (unsigned i = 0; i < 4; ++i)
      v.push_back(prefix + std::to_string(i));
    return v;
  };
  auto args = [&](const std::string &prefix) {
    std::string text;
    for (unsigned i = 0; i < 4; ++i)
      text += (i ? ", %" : "%") + prefix + std::to_string(i) + ": f32";
    return text;
  };
  auto values = [](llvm::ArrayRef<std::string> v) {
    return joined(v) + " : f32, f32, f32, f32";
  };

  w.label("^fused:");
  std::string zero = w.i32(0), one = w.i32(1);
  std::string staging = w.add32(
      w.add32(in.tiles, w.i32(ringBytes)), w.mul32(in.g, w.i32(64 * rowBytes)));
  std::string isFirstGroup = w.setp("eq", in.g, zero);
  auto groupBarrier = [&] {
    w.op("ptx.bar_sync if " + isFirstGroup + " 1, 128");
    w.op("ptx.bar_sync if not " + isFirstGroup + " 2, 128");
  };
  // Writes: accumulator e of the m64nN layout is row 16 warp + quad + 8 h
  // (h = e / 2 % 2), column 8 (e / 4) + 2 pair + e % 2.
  std::string lane = w.let("ptx.and b32 " + in.lane128 + ", " + w.i32(31) + " : i32");
  std::string warp = w.shr(in.lane128, 5);
  std::string quad = w.shr(lane, 2);
  std::string pair = w.let("ptx.and b32 " + lane + ", " + w.i32(3) + " : i32");
  std::string writeBase = w.add32(
      staging,
      w.add32(w.mul32(w.add32(w.mul32(warp, w.i32(16)), quad), w.i32(rowBytes)),
              w.mul32(pair, w.i32(8))));
  // Reads: pass p covers rows 16 p + lane128 / 8, columns 4 (lane128 % 8).
  std::string readRow = w.shr(in.lane128, 3);
  std::string quarter = w.let("ptx.and b32 " + in.lane128 + ", " + w.i32(7) + " : i32");
  std::string readBase = w.add32(
      staging, w.add32(w.mul32(readRow, w.i32(rowBytes)),
                       w.mul32(quarter, w.i32(16))));
  std::string act = w.let("ptx.and b32 %epi, " + w.i32(kGemmActivationMask) + " : i32");
  std::string biasCols = w.setp(
      "ne", w.let("ptx.and b32 %epi, " + w.i32(kGemmBiasColumns) + " : i32"), zero);
  std::string biasRows = w.setp(
      "ne", w.let("ptx.and b32 %epi, " + w.i32(kGemmBiasRows) + " : i32"), zero);
  std::string rows0 = w.add32(in.row0, w.mul32(in.g, w.i32(64)));
  w.op("ptx.bra ^fchunk(" + zero + " : i32)");

  // Chunk j: wait until the last reads of the buffer are done, write the
  // chunk's accumulators (a branch per chunk: registers are not indexed).
  w.label("^fchunk(%fj: i32):");
  groupBarrier();
  for (unsigned j = 0; j < chunks; ++j) {
    std::string next = "^fwrite" + std::to_string(j);
    if (j + 1 < chunks) {
      std::string is = w.setp("eq", "%fj", w.i32(j));
      w.op("ptx.cond_bra " + is + ", " + next + ", ^fpick" +
           std::to_string(j + 1));
      w.label("^fpick" + std::to_string(j + 1) + ":");
    } else {
      w.op("ptx.bra " + next);
    }
  }
  for (unsigned j = 0; j < chunks; ++j) {
    w.label("^fwrite" + std::to_string(j) + ":");
    for (unsigned e = j * kChunkAccs; e < (j + 1) * kChunkAccs; e += 2) {
      const unsigned h = e / 2 % 2, col8 = e / 4 - j * (kChunkAccs / 4);
      const unsigned offset = h * 8 * rowBytes + col8 * 32;
      w.op("ptx.st shared f32 [" + writeBase + " + " + std::to_string(offset) +
           "], %res" + std::to_string(e) + ", %res" + std::to_string(e + 1) +
           " : i32, f32, f32");
    }
    w.op("ptx.bra ^fstaged");
  }
  w.label("^fstaged:");
  groupBarrier();
  std::string chunkCol = w.add32(
      w.add32(in.col0, w.mul32("%fj", w.i32(kGemmStagingColumns))),
      w.mul32(quarter, w.i32(4)));
  w.op("ptx.bra ^fpass(" + zero + " : i32)");

  // Pass p: 4 columns of one row, scaled by alpha.
  w.label("^fpass(%fp: i32):");
  std::string fp16 = w.mul32("%fp", w.i32(kPassRows));
  std::string x = w.letMany(
      4, "ptx.ld shared f32 [" +
             w.add32(readBase, w.mul32("%fp", w.i32(kPassRows * rowBytes))) +
             "] : i32 -> f32, f32, f32, f32");
  std::vector<std::string> v;
  for (unsigned i = 0; i < 4; ++i)
    v.push_back(w.let("ptx.mul rn f32 " + x + "#" + std::to_string(i) +
                      ", %alpha : f32"));
  std::string row = w.add32(rows0, w.add32(fp16, readRow));
  std::string rowOk = w.setp("lt", row, "%m");
  std::vector<std::string> colOk, ok;
  for (unsigned i = 0; i < 4; ++i) {
    colOk.push_back(w.setp("lt", w.add32(chunkCol, w.i32(i)), "%n"));
    ok.push_back(w.let("ptx.and pred " + rowOk + ", " + colOk[i] + " : i1"));
  }
  // 64-bit offsets: row * ldc may pass 2^32 elements.
  std::string rowElems =
      w.let("ptx.mul wide u32 " + row + ", %ldc : (i32, i32) -> i64");
  std::string element = w.add64(
      rowElems, w.let("ptx.cvt u64 u32 " + chunkCol + " : i32 -> i64"));
  std::string at = w.add64(
      in.c, w.let("ptx.shl b64 " + element + ", " +
                  w.i32(llvm::Log2_32(outBytes)) + " : (i64, i32) -> i64"));
  // One element of C's type at `address` (+ offset) as f32.
  auto loadOut = [&](const std::string &pred, const std::string &address,
                     unsigned offset) {
    std::string where = "[" + address + " + " + std::to_string(offset) + "]";
    if (!out16)
      return w.let("ptx.ld if " + pred + " global f32 " + where + " : i64 -> f32");
    std::string raw = w.let("ptx.ld if " + pred + " global b16 " + where +
                            " : i64 -> " + outType);
    return w.let(std::string("ptx.cvt f32 ") + outType + " " + raw + " : " +
                 outType + " -> f32");
  };
  w.op("ptx.cond_bra " + in.readC + ", ^fbeta(" + values(v) + "), ^fbias(" +
       values(v) + ")");

  w.label("^fbeta(" + args("fb") + "):");
  std::vector<std::string> withC;
  for (unsigned i = 0; i < 4; ++i)
    withC.push_back(w.let("ptx.fma rn f32 " + loadOut(ok[i], at, i * outBytes) +
                          ", %beta, %fb" + std::to_string(i) + " : f32"));
  w.op("ptx.bra ^fbias(" + values(withC) + ")");

  // + bias[col] or + bias[row] (element-wise loads: bias is small and in L2).
  w.label("^fbias(" + args("fc") + "):");
  w.op("ptx.cond_bra " + biasCols + ", ^fbias_cols(" + values(names("%fc")) +
       "), ^fbias_rows_check(" + values(names("%fc")) + ")");
  // Block `label`: + bias[index + i] (per column) or + bias[index] (per
  // row) on the 4 values, then the activation.
  auto addBias = [&](const std::string &label, const std::string &prefix,
                     const std::string &index, bool perColumn) {
    w.label("^" + label + "(" + args(prefix) + "):");
    std::string at = w.add64(
        "%bias", w.let("ptx.mul wide u32 " + index + ", " + w.i32(outBytes) +
                       " : (i32, i32) -> i64"));
    std::string rowBias = perColumn ? "" : loadOut(rowOk, at, 0);
    std::vector<std::string> sum;
    for (unsigned i = 0; i < 4; ++i)
      sum.push_back(w.let("ptx.add rn f32 %" + prefix + std::to_string(i) +
                          ", " +
                          (perColumn ? loadOut(colOk[i], at, i * outBytes)
                                     : rowBias) +
                          " : f32"));
    w.op("ptx.bra ^fact(" + values(sum) + ")");
  };
  addBias("fbias_cols", "fd", chunkCol, /*perColumn=*/true);
  w.label("^fbias_rows_check(" + args("fe") + "):");
  w.op("ptx.cond_bra " + biasRows + ", ^fbias_rows(" + values(names("%fe")) +
       "), ^fact(" + values(names("%fe")) + ")");
  addBias("fbias_rows", "ff", row, /*perColumn=*/false);

  // The activation: a uniform branch to one copy of each formula.
  const Activation kActs[] = {Activation::Relu, Activation::Silu,
                              Activation::GeluTanh, Activation::GeluErf};
  w.label("^fact(" + args("fg") + "):");
  for (Activation a : kActs) {
    std::string is = w.setp("eq", act, w.i32(unsigned(a)));
    std::string name = getActivationName(a);
    w.op("ptx.cond_bra " + is + ", ^fact_" + name + "(" +
         values(names("%fg")) + "), ^fnot_" + name);
    w.label("^fnot_" + name + ":");
  }
  w.op("ptx.bra ^fstore(" + values(names("%fg")) + ")");
  for (Activation a : kActs) {
    std::string name = getActivationName(a);
    std::string prefix = "fa_" + name + "_";
    w.label("^fact_" + name + "(" + args(prefix) + "):");
    std::vector<std::string> y;
    for (unsigned i = 0; i < 4; ++i)
      y.push_back(
          activate(a, TextF32{&w, "%" + prefix + std::to_string(i)}).v);
    w.op("ptx.bra ^fstore(" + values(y) + ")");
  }

  // The store: 4 columns at once where they are all in C and the rows
  // aligned, else element by element.
  w.label("^fstore(" + args("fs") + "):");
  std::string inside = w.setp("le", w.add32(chunkCol, w.i32(4)), "%n");
  std::string vector = w.let(
      "ptx.and pred " + w.let("ptx.and pred " + rowOk + ", " + inside + " : i1") +
      ", " + in.aligned + " : i1");
  std::vector<std::string> result = names("%fs");
  w.op("ptx.cond_bra " + vector + ", ^fvector, ^fscalar");
  w.label("^fvector:");
  if (out16) {
    // Little-endian: the lower column in the low half.
    std::string lo = w.let(std::string("ptx.cvt_pack rn ") + outType + "x2 " +
                           result[1] + ", " + result[0] + " : i32");
    std::string hi = w.let(std::string("ptx.cvt_pack rn ") + outType + "x2 " +
                           result[3] + ", " + result[2] + " : i32");
    w.op("ptx.st global b32 [" + at + "], " + lo + ", " + hi + " : i64, i32, i32");
  } else {
    w.op("ptx.st global f32 [" + at + "], " + joined(result) +
         " : i64, f32, f32, f32, f32");
  }
  w.op("ptx.bra ^fnext");
  w.label("^fscalar:");
  for (unsigned i = 0; i < 4; ++i) {
    std::string where = "[" + at + " + " + std::to_string(i * outBytes) + "]";
    if (out16) {
      std::string rounded = w.let(std::string("ptx.cvt rn ") + outType +
                                  " f32 " + result[i] + " : f32 -> " + outType);
      w.op("ptx.st if " + ok[i] + " global b16 " + where + ", " + rounded +
           " : i64, " + outType);
    } else {
      w.op("ptx.st if " + ok[i] + " global f32 " + where + ", " + result[i] +
           " : i64, f32");
    }
  }
  w.op("ptx.bra ^fnext");

  // Next pass, next chunk, next tile.
  w.label("^fnext:");
  std::string nextPass = w.add32("%fp", one);
  w.op("ptx.cond_bra " + w.setp("lt", nextPass, w.i32(kPasses)) + ", ^fpass(" +
       nextPass + " : i32), ^fchunk_end");
  w.label("^fchunk_end:");
  std::string nextChunk = w.add32("%fj", one);
  w.op("ptx.cond_bra " + w.setp("lt", nextChunk, w.i32(chunks)) +
       ", ^fchunk(" + nextChunk + " : i32), ^ctile(" + in.nextTile + ", " +
       in.nextIt + " : i32, i32)");
}

} // namespace

std::string kaio::ops::kernels::hopperGemmSource(const HopperGemmConfig &c) {
  const unsigned accs = c.blockN / 2; // f32 accumulators per thread
  const unsigned inBytes = getGemmElemBytes(c.in);
  const unsigned aBytes = c.blockM * c.blockK * inBytes;
  const unsigned bBytes = c.blockK * c.blockN * inBytes;
  const unsigned stageBytes = aBytes + bBytes;
  const unsigned ringBytes = stageBytes * c.stages;
  const unsigned smem = hopperGemmSharedBytes(c);
  // One wgmma covers 32 bytes of K: k16 of 16-bit, k32 of 8-bit, k8 of
  // tf32 elements.
  const unsigned kInstr = 32 / inBytes;
  const char *type = getGemmMmaTypeName(c.in);
  const char *outType = getGemmElemName(c.out);
  const bool out16 = getGemmElemBytes(c.out) == 2;
  const unsigned outBytes = getGemmElemBytes(c.out);
  const std::string name = hopperGemmName(c);
  PtxWriter w;
  std::string out;
  out += llvm::formatv("  ptx.var shared @{0}_tiles : b8 extern align 1024\n"
                       "  ptx.var shared @{0}_bars : b64 [{1}] align 8\n",
                       name, 2 * c.stages);
  out += llvm::formatv(
      "  ptx.entry @{0}(%ma: i64 {{ptx.tensor_map, ptx.name = \"a_map\"}, "
      "%mb: i64 {{ptx.tensor_map, ptx.name = \"b_map\"}, "
      "%c: i64 {{ptx.ptr = {2}, ptx.name = \"c\"}, %m: i32 {{ptx.name = \"m\"}, "
      "%n: i32 {{ptx.name = \"n\"}, %k: i32 {{ptx.name = \"k\"}, "
      "%ldc: i32 {{ptx.name = \"ldc\"}, %alpha: f32 {{ptx.name = \"alpha\"}, "
      "%beta: f32 {{ptx.name = \"beta\"}, "
      "%bias: i64 {{ptx.ptr = {2}, ptx.readonly, ptx.name = \"bias\"}, "
      "%epi: i32 {{ptx.name = \"epilogue\"}, "
      "%kps: i32 {{ptx.name = \"k_tiles_per_split\"}, "
      "%c_split: i64 {{ptx.name = \"c_split_bytes\"}) attributes {{reqntid = "
      "array<i32: 384>, {3}"
      "dynamic_smem = {1} : i64} {{\n",
      name, smem, c.out == GemmElem::S32 ? "i32" : outType,
      c.clusterM > 1 ? llvm::formatv("reqnctapercluster = array<i32: {0}>, ",
                                     c.clusterM)
                           .str()
                     : std::string());

  // Common values; thread 0 initialises the barriers: full[s] waits for the
  // producer's arrival and the stage's bytes, empty[s] for both consumers.
  std::string tid = w.let("ptx.sreg tid.x : i32");
  std::string c7 = w.i32(7);
  std::string wg = w.let("ptx.shr u32 " + tid + ", " + c7 + " : (i32, i32) -> i32");
  // A cluster walks the units as one: its index and count; its blocks
  // take the unit's tiles by rank.
  const unsigned cl = c.clusterM;
  std::string bx = w.let(cl > 1 ? "ptx.sreg clusterid.x : i32"
                                : "ptx.sreg ctaid.x : i32");
  std::string nbx = w.let(cl > 1 ? "ptx.sreg nclusterid.x : i32"
                                 : "ptx.sreg nctaid.x : i32");
  std::string rank = cl > 1 ? w.let("ptx.sreg cluster_ctarank : i32") : "";
  std::string tiles = w.let("ptx.addressof @" + name + "_tiles : i32");
  std::string bars = w.let("ptx.addressof @" + name + "_bars : i32");
  std::string zero = w.i32(0), one = w.i32(1), two = w.i32(2);
  std::string kLast = w.i32(c.blockK - 1);
  std::string kEnd = w.add32("%k", kLast);
  std::string kShift = w.i32(llvm::Log2_32(c.blockK));
  std::string kTiles =
      w.let("ptx.shr u32 " + kEnd + ", " + kShift + " : (i32, i32) -> i32");
  std::string first = w.setp("eq", tid, zero);
  std::string tilesM = w.let(
      "ptx.shr u32 " + w.add32("%m", w.i32(c.blockM - 1)) + ", " +
      w.i32(llvm::Log2_32(c.blockM)) + " : (i32, i32) -> i32");
  std::string tilesN = w.let(
      "ptx.shr u32 " + w.add32("%n", w.i32(c.blockN - 1)) + ", " +
      w.i32(llvm::Log2_32(c.blockN)) + " : (i32, i32) -> i32");
  // Units of `cl` vertically adjacent tiles.
  std::string unitsM =
      cl > 1 ? w.let("ptx.shr u32 " + w.add32(tilesM, w.i32(cl - 1)) + ", " +
                     w.i32(llvm::Log2_32(cl)) + " : (i32, i32) -> i32")
             : tilesM;
  std::string numTiles = w.mul32(unitsM, tilesN);
  // Split K: work unit u is tile u % numTiles over k tiles [s kps, s kps +
  // kps) of split s = u / numTiles, its C at c + s c_split (the host's
  // partial sums); kps >= k tiles is one split.
  std::string kps = w.let("ptx.max u32 %kps, " + w.i32(1) + " : i32");
  std::string splits = w.let(
      "ptx.div u32 " + w.add32(kTiles, w.add32(kps, w.i32(-1))) + ", " + kps +
      " : i32");
  std::string numUnits = w.mul32(numTiles, splits);
  // Tile rows per rasterization group (in units of `cl` tiles).
  const unsigned kGroupM = 8 / cl;
  std::string groupSize = w.mul32(tilesN, w.i32(kGroupM));
  std::vector<std::string> full(c.stages), empty(c.stages);
  for (unsigned s = 0; s < c.stages; ++s) {
    full[s] = w.add32(bars, w.i32(8 * s));
    empty[s] = w.add32(bars, w.i32(8 * (c.stages + s)));
    w.op("ptx.mbarrier_init if " + first + " [" + full[s] + "], " + one + " : i32");
    // Both consumers of every block whose copies land in this block's
    // stage (the cluster's: B is multicast) free it.
    w.op("ptx.mbarrier_init if " + first + " [" + empty[s] + "], " +
         w.i32(2 * cl) + " : i32");
  }
  w.op("ptx.fence_mbarrier_init");
  // In a cluster every block's barriers exist before any multicast.
  if (cl > 1) {
    w.op("ptx.barrier_cluster_arrive release aligned");
    w.op("ptx.barrier_cluster_wait acquire aligned");
  } else {
    w.op("ptx.bar_sync 0");
  }
  std::string stageMask = w.i32(c.stages - 1);
  std::string stageShift = w.i32(llvm::Log2_32(c.stages));
  std::string stageSize = w.i32(stageBytes);
  std::string eight = w.i32(8);
  std::string isProducer = w.setp("eq", wg, zero);
  w.op("ptx.cond_bra " + isProducer + ", ^producer, ^consumer");

  // The stage of k tile `kt`: its index, the parity of its round, its full
  // and empty barrier addresses and its buffer.
  struct Stage {
    std::string index, parity, full, empty, buffer;
  };
  auto stageOf = [&](const std::string &kt) {
    Stage s;
    s.index = w.let("ptx.and b32 " + kt + ", " + stageMask + " : i32");
    std::string round =
        w.let("ptx.shr u32 " + kt + ", " + stageShift + " : (i32, i32) -> i32");
    s.parity = w.let("ptx.and b32 " + round + ", " + one + " : i32");
    std::string barOff = w.mul32(s.index, eight);
    s.full = w.add32(full[0], barOff);
    s.empty = w.add32(empty[0], barOff);
    s.buffer = w.add32(tiles, w.mul32(s.index, stageSize));
    return s;
  };

  // The first row and column of tile `tile` (N fastest).
  // Grouped rasterization: tiles go down groups of kGroupM tile rows
  // before moving right, so the blocks running at once share A's rows and
  // B's columns in L2.
  struct Unit {
    std::string row0, col0, kt0, kt1, split;
  };
  auto unitOf = [&](const std::string &unit) {
    Unit u;
    std::string tile =
        w.let("ptx.rem u32 " + unit + ", " + numTiles + " : i32");
    u.split = w.let("ptx.div u32 " + unit + ", " + numTiles + " : i32");
    u.kt0 = w.mul32(u.split, kps);
    u.kt1 = w.let("ptx.min u32 " + w.add32(u.kt0, kps) + ", " + kTiles +
                  " : i32");
    std::string group = w.let("ptx.div u32 " + tile + ", " + groupSize + " : i32");
    std::string firstM = w.mul32(group, w.i32(kGroupM));
    std::string rowsLeft = w.let("ptx.sub s32 " + unitsM + ", " + firstM + " : i32");
    std::string groupM =
        w.let("ptx.min u32 " + rowsLeft + ", " + w.i32(kGroupM) + " : i32");
    std::string inGroup = w.let("ptx.rem u32 " + tile + ", " + groupSize + " : i32");
    std::string tm = w.add32(
        firstM, w.let("ptx.rem u32 " + inGroup + ", " + groupM + " : i32"));
    std::string tn = w.let("ptx.div u32 " + inGroup + ", " + groupM + " : i32");
    // A cluster's unit: tile rows cl tm + rank (past M for the last unit
    // of an odd count: TMA reads zeros there, the epilogue stores none).
    if (cl > 1)
      tm = w.add32(w.mul32(tm, w.i32(cl)), rank);
    u.row0 = w.mul32(tm, w.i32(c.blockM));
    u.col0 = w.mul32(tn, w.i32(c.blockN));
    return u;
  };
  // Units left: `unit` < numUnits.
  auto tileLoop = [&](llvm::StringRef name, llvm::StringRef body) {
    w.label("^" + name + "(%" + name + "_tile: i32, %" + name + "_it: i32):");
    std::string more = w.setp("lt", "%" + name.str() + "_tile", numUnits);
    w.op("ptx.cond_bra " + more + ", ^" + body + ", ^done");
    w.label("^" + body + ":");
  };

  // Producer: thread 0 of warpgroup 0 issues the copies of every k tile
  // once its stage is free (parity ^ 1: the first round passes at once).
  w.label("^producer:");
  w.op("ptx.setmaxnreg dec 40");
  w.op("ptx.cond_bra " + first + ", ^ptile(" + bx + ", " + zero +
       " : i32, i32), ^done");
  tileLoop("ptile", "ptile_body");
  Unit pu = unitOf("%ptile_tile");
  const std::string &row0 = pu.row0, &col0 = pu.col0;
  w.op("ptx.bra ^produce(" + pu.kt0 + ", %ptile_it : i32, i32)");
  w.label("^produce(%pkt: i32, %pit: i32):");
  Stage ps = stageOf("%pit");
  std::string freeParity = w.let("ptx.xor b32 " + ps.parity + ", " + one + " : i32");
  w.waitParity(ps.empty, freeParity, "producer_wait", "producer_issue");
  std::string bytes = w.i32(stageBytes);
  w.op("ptx.mbarrier_arrive expect_tx shared [" + ps.full + "], " + bytes +
       " : i32");
  std::string kx = w.mul32("%pkt", w.i32(c.blockK));
  // A tile of `rows` x BK, K-major: one box of BK columns (128 bytes) x
  // `rows` rows at `dst`; MN-major (16-bit only): rows/64 boxes of 64
  // columns x BK rows, block j (columns 64j..) at dst + j * 64 * BK * 2.
  // The map's innermost coordinate comes first.
  auto loadTile = [&](const char *map, const std::string &dst,
                      const std::string &mn0, unsigned rows, bool mnMajor) {
    if (!mnMajor) {
      w.op(std::string("ptx.cp_async_bulk_tensor_load 2d [") + dst + "], [" +
           map + ", {" + kx + ", " + mn0 + "}], [" + ps.full + "] : i32, i32");
      return;
    }
    for (unsigned j = 0; j < rows / 64; ++j) {
      std::string at =
          j ? w.add32(dst, w.i32(j * 64 * c.blockK * inBytes)) : dst;
      std::string mn = j ? w.add32(mn0, w.i32(64 * j)) : mn0;
      w.op(std::string("ptx.cp_async_bulk_tensor_load 2d [") + at + "], [" +
           map + ", {" + mn + ", " + kx + "}], [" + ps.full + "] : i32, i32");
    }
  };
  loadTile("%ma", ps.buffer, row0, c.blockM, c.aColMajor);
  std::string bBuffer = w.add32(ps.buffer, w.i32(aBytes));
  if (cl == 1) {
    loadTile("%mb", bBuffer, col0, c.blockN, !c.bColMajor);
  } else {
    // The cluster's blocks share B's k tile: each loads 1/cl of it and
    // multicasts it to all (their full barriers, at the same offset,
    // expect the whole stage). K-major: block r the rows [r BN/cl, (r + 1)
    // BN/cl) of the tile (boxes of BN/cl rows); MN-major: the 64-column
    // boxes cl i + r.
    std::string all = w.let("ptx.constant " + std::to_string((1u << cl) - 1) +
                            " : i16");
    auto multicast = [&](const std::string &dst, const std::string &inner,
                         const std::string &outer) {
      w.op("ptx.cp_async_bulk_tensor_load 2d [" + dst + "], [%mb, {" + inner +
           ", " + outer + "}], [" + ps.full + "] multicast " + all +
           " : i32, i32");
    };
    if (c.bColMajor) {
      const unsigned part = c.blockN / cl;
      multicast(w.add32(bBuffer, w.mul32(rank, w.i32(part * 128))), kx,
                w.add32(col0, w.mul32(rank, w.i32(part))));
    } else {
      std::string dst0 =
          w.add32(bBuffer, w.mul32(rank, w.i32(64 * c.blockK * inBytes)));
      std::string col = w.add32(col0, w.mul32(rank, w.i32(64)));
      for (unsigned i = 0; i < c.blockN / 64 / cl; ++i)
        multicast(i ? w.add32(dst0, w.i32(i * cl * 64 * c.blockK * inBytes))
                    : dst0,
                  i ? w.add32(col, w.i32(i * cl * 64)) : col, kx);
    }
  }
  std::string pnext = w.add32("%pkt", one);
  std::string pitNext = w.add32("%pit", one);
  std::string pmore = w.setp("lt", pnext, pu.kt1);
  std::string pnextTile = w.add32("%ptile_tile", nbx);
  w.op("ptx.cond_bra " + pmore + ", ^produce(" + pnext + ", " + pitNext +
       " : i32, i32), ^ptile(" + pnextTile + ", " + pitNext + " : i32, i32)");

  // Consumers: warpgroup 1 + g owns rows [64 g, 64 g + 64) of the tile.
  w.label("^consumer:");
  w.op("ptx.setmaxnreg inc 232");
  std::string g = w.add32(wg, w.i32(-1));
  std::string aRows = w.mul32(g, w.i32(64 * c.blockK * inBytes));
  // Descriptor high bits: an MN-major operand's 64-column atoms are BK
  // rows of 128 bytes apart (LBO); K-major ones need none.
  const bool aMnMajor = c.aColMajor, bMnMajor = !c.bColMajor;
  auto descHigh = [&](bool mnMajor) {
    return w.i64(swizzle128DescriptorHigh(mnMajor ? c.blockK * 128 : 0));
  };
  std::string descA = descHigh(aMnMajor);
  std::string descB = descHigh(bMnMajor);
  // s8 inputs accumulate in s32 registers, the others in f32.
  const bool intAcc = c.in == GemmElem::S8;
  const char *accType = intAcc ? "i32" : "f32";
  std::string fz = w.let(intAcc ? "ptx.constant 0 : i32"
                                : "ptx.constant 0.000000e+00 : f32");
  std::vector<std::string> zeros(accs, fz);
  std::string accTypes;
  for (unsigned i = 0; i < accs; ++i)
    accTypes += std::string(i ? ", " : "") + accType;
  std::string accArgs;
  for (unsigned i = 0; i < accs; ++i)
    accArgs += llvm::formatv("{0}%acc{1}: {2}", i ? ", " : "", i, accType).str();
  std::string lane128 = w.let("ptx.and b32 " + tid + ", " + w.i32(127) + " : i32");
  std::string wgLeader = w.setp("eq", lane128, zero);
  // A consumer warpgroup frees a stage in every block of the cluster (each
  // multicasts into it). The arrive keeps the default .release.cta: what
  // it publishes is that this warpgroup's wgmmas (waited for) are done
  // reading the stage, and the TMA writes that follow are ordered by the
  // barrier itself. A .release.cluster arrive fences this thread's memory
  // at cluster scope on every k tile: 3.4x the time of the whole GEMM on
  // an H100 (docs/perf.md, session 21).
  auto freeStage = [&](const std::string &pred, const std::string &emptyBar) {
    if (cl == 1) {
      w.op("ptx.mbarrier_arrive if " + pred + " shared [" + emptyBar +
           "] : i32");
      return;
    }
    for (unsigned r = 0; r < cl; ++r) {
      std::string remote = w.let("ptx.mapa shared_cluster " + emptyBar + ", " +
                                 w.i32(r) + " : i32");
      w.op("ptx.mbarrier_arrive if " + pred + " shared_cluster [" + remote +
           "] : i32");
    }
  };
  w.op("ptx.bra ^ctile(" + bx + ", " + zero + " : i32, i32)");
  tileLoop("ctile", "ctile_body");
  Unit cu = unitOf("%ctile_tile");
  const std::string &crow0 = cu.row0, &ccol0 = cu.col0;
  // This unit's C: the split's partial sums when K is split.
  std::string cTile = w.add64(
      "%c", w.let("ptx.mul lo u64 " +
                  w.let("ptx.cvt u64 u32 " + cu.split + " : i32 -> i64") +
                  ", %c_split : i64"));
  w.op("ptx.bra ^consume(" + cu.kt0 + ", %ctile_it, " + joined(zeros) +
       " : i32, i32, " + accTypes + ")");
  w.label("^consume(%ckt: i32, %cit: i32, " + accArgs + "):");
  Stage cs = stageOf("%cit");
  w.waitParity(cs.full, cs.parity, "consumer_wait", "consumer_mma");
  std::string da = w.descriptor(w.add32(cs.buffer, aRows), descA, cl > 1);
  std::string db =
      w.descriptor(w.add32(cs.buffer, w.i32(aBytes)), descB, cl > 1);
  std::vector<std::string> acc;
  for (unsigned i = 0; i < accs; ++i)
    acc.push_back("%acc" + std::to_string(i));
  w.op("ptx.wgmma_fence");
  // Each wgmma's K: a K-major operand steps 32 bytes along its 128-byte
  // rows, an MN-major one (16-bit only) 16 rows of 128 bytes (descriptor
  // units of 16 bytes).
  auto kStep = [](bool mnMajor, unsigned kk) {
    return int64_t(mnMajor ? 16 * 128 : 32) * kk / 16;
  };
  const std::string trans = std::string(aMnMajor ? " trans_a" : "") +
                            (bMnMajor ? " trans_b" : "");
  // Promoted FP8 sums: the tile's wgmmas start from nothing (scale-d 0: the
  // accumulators they are given do not matter) into their own registers.
  const bool promote = hopperGemmPromotesSums(c.in);
  std::vector<std::string> sums = promote ? zeros : acc;
  for (unsigned kk = 0; kk < c.blockK / kInstr; ++kk) {
    std::string dak = kk ? w.add64(da, w.i64(kStep(aMnMajor, kk))) : da;
    std::string dbk = kk ? w.add64(db, w.i64(kStep(bMnMajor, kk))) : db;
    std::string d = w.letMany(
        accs, llvm::formatv("ptx.wgmma_mma_async m64n{0}k{6} {7} {1} "
                            "{1} {{{2}}, {3}, {4}{9}{5} : {8}",
                            c.blockN, type, joined(sums), dak, dbk, trans,
                            kInstr, intAcc ? "s32" : "f32", accType,
                            promote && kk == 0 ? " scale_d_imm 0" : "")
                  .str());
    for (unsigned i = 0; i < accs; ++i)
      sums[i] = d + "#" + std::to_string(i);
  }
  w.op("ptx.wgmma_commit_group");
  if (promote) {
    // Wait for the tile's sums (its stage is free then) and add them in.
    w.op("ptx.wgmma_wait_group 0");
    freeStage(wgLeader, cs.empty);
    for (unsigned i = 0; i < accs; ++i)
      acc[i] = w.let("ptx.add rn f32 " + acc[i] + ", " + sums[i] + " : f32");
  } else {
    // Keep this group in flight; once the previous one is done its stage
    // is free (the first k tile of a tile has no previous group).
    acc = sums;
    w.op("ptx.wgmma_wait_group 1");
    std::string notFirst = w.setp("ne", "%ckt", cu.kt0);
    std::string release =
        w.let("ptx.and pred " + wgLeader + ", " + notFirst + " : i1");
    std::string prevIt = w.add32("%cit", w.i32(-1));
    Stage prev = stageOf(prevIt);
    freeStage(release, prev.empty);
  }
  std::string cnext = w.add32("%ckt", one);
  std::string citNext = w.add32("%cit", one);
  std::string cmore = w.setp("lt", cnext, cu.kt1);
  w.op("ptx.cond_bra " + cmore + ", ^consume(" + cnext + ", " + citNext + ", " +
       joined(acc) + " : i32, i32, " + accTypes + "), ^epilogue(" +
       joined(acc) + " : " + accTypes + ")");

  // Epilogue: the m16n8 accumulator layout, once per 8 columns.
  // An s32 C takes the sums as they are; other Cs from s8 inputs the sums
  // converted to f32 (exact up to 2^24), then scaled like any other.
  const bool intOut = c.out == GemmElem::S32;
  std::string resArgs;
  for (unsigned i = 0; i < accs; ++i)
    resArgs += llvm::formatv("{0}%{1}{2}: {3}", i ? ", " : "",
                             intAcc && !intOut ? "sum" : "res", i, accType)
                   .str();
  w.label("^epilogue(" + resArgs + "):");
  // The last group: wait for it and free its stage (promoted sums did).
  if (!promote) {
    w.op("ptx.wgmma_wait_group 0");
    freeStage(wgLeader, cs.empty);
  }
  if (intAcc && !intOut)
    for (unsigned i = 0; i < accs; ++i)
      w.op(llvm::formatv("%res{0} = ptx.cvt rn f32 s32 %sum{0} : i32 -> f32", i)
               .str());
  std::string lane = w.let("ptx.and b32 " + tid + ", " + w.i32(31) + " : i32");
  std::string warp = w.let("ptx.shr u32 " + lane128 + ", " + w.i32(5) +
                           " : (i32, i32) -> i32");
  std::string quad = w.let("ptx.shr u32 " + lane + ", " + w.i32(2) +
                           " : (i32, i32) -> i32");
  std::string pair = w.let("ptx.and b32 " + lane + ", " + w.i32(3) + " : i32");
  std::string rowBase = w.add32(
      w.add32(crow0, w.mul32(g, w.i32(64))),
      w.add32(w.mul32(warp, w.i32(16)), quad));
  std::string colBase = w.add32(ccol0, w.mul32(pair, two));
  // C = alpha * acc + beta * C; beta 0 never reads C (its own path). Each
  // row half has one base address; the elements are immediate offsets.
  std::string fzero = w.let("ptx.constant 0.000000e+00 : f32");
  std::string readC = w.let("ptx.setp ne f32 %beta, " + fzero + " : f32");
  std::string colBytes = w.let("ptx.mul wide u32 " + colBase + ", " +
                               w.i32(outBytes) + " : (i32, i32) -> i64");
  std::string cBase = w.add64(cTile, colBytes);
  std::string nextTile = w.add32("%ctile_tile", nbx);
  // Without beta, pairs of neighbouring columns (even, the next; N is a
  // multiple of 8, so both are in bounds or neither) go out as one store
  // (f32: an 8-byte st.v2; 16-bit: the pair packed into one 4-byte word)
  // when C's rows allow it (C aligned to the pair, ldc even); else one
  // element at a time.
  const unsigned pairBytes = 2 * outBytes;
  std::string cLow = w.let("ptx.cvt u32 u64 " + cTile + " : i64 -> i32");
  std::string rowStride =
      w.let("ptx.mul lo u32 %ldc, " + w.i32(outBytes) + " : i32");
  std::string misaligned = w.let(
      "ptx.and b32 " + w.let("ptx.or b32 " + cLow + ", " + rowStride + " : i32") +
      ", " + w.i32(pairBytes - 1) + " : i32");
  std::string pairs = w.setp("eq", misaligned, zero);
  // C's rows allow 16-byte stores of 4 columns (f32) or 8-byte ones.
  std::string aligned16 = w.setp(
      "eq",
      w.let("ptx.and b32 " + w.let("ptx.or b32 " + cLow + ", " + rowStride +
                                   " : i32") +
            ", " + w.i32(4 * outBytes - 1) + " : i32"),
      zero);
  // Anything but a plain result takes the staged epilogue (as does beta on
  // 256-column tiles, whose register path never reads C).
  // (An s32 C has no fused epilogue: integer sums, alpha 1, beta 0 or 1
  // — C += A B —, read beside the accumulators at both widths.)
  const bool readsC = c.blockN <= 128 || intOut;
  if (!intOut) {
    std::string fused = w.setp("ne", "%epi", zero);
    if (!readsC)
      fused = w.let("ptx.or pred " + fused + ", " + readC + " : i1");
    w.op("ptx.cond_bra " + fused + ", ^fused, ^plain");
    writeFusedEpilogue(w, c, {tiles, g, lane128, crow0, ccol0, cTile, readC,
                              aligned16, nextTile, citNext});
    w.label("^plain:");
  }
  if (readsC)
    w.op("ptx.cond_bra " + readC + ", ^store_beta, ^store_check");
  else
    w.op("ptx.bra ^store_check");
  w.label("^store_check:");
  w.op("ptx.cond_bra " + pairs + ", ^store_pairs, ^store");
  enum class Epilogue { Beta, Scalar, Pairs };
  for (Epilogue kind : {Epilogue::Beta, Epilogue::Scalar, Epilogue::Pairs}) {
    const bool withBeta = kind == Epilogue::Beta;
    if (withBeta && !readsC)
      continue; // the staged epilogue's
    w.label(withBeta                     ? "^store_beta:"
            : kind == Epilogue::Scalar ? "^store:"
                                         : "^store_pairs:");
    for (unsigned h = 0; h < 2; ++h) {
      std::string row = w.add32(rowBase, w.i32(8 * h));
      std::string rowOk = w.setp("lt", row, "%m");
      std::string rowBytes = w.let("ptx.mul wide u32 " + row + ", %ldc : (i32, i32) -> i64");
      std::string rowAddr = w.add64(
          cBase, w.let("ptx.shl b64 " + rowBytes + ", " +
                       w.i32(out16 ? 1 : 2) + " : (i64, i32) -> i64"));
      for (unsigned e = 0; e < accs; ++e) {
        if ((e / 2) % 2 != h)
          continue;
        if (kind == Epilogue::Pairs && e % 2)
          continue; // stored with its even neighbour
        const unsigned offset = 8 * (e / 4) + e % 2;
        std::string col = w.add32(colBase, w.i32(offset));
        std::string colOk = w.setp("lt", col, "%n");
        std::string ok = w.let("ptx.and pred " + rowOk + ", " + colOk + " : i1");
        std::string at = "[" + rowAddr + " + " +
                         std::to_string(outBytes * offset) + "]";
        auto scaled = [&](unsigned i) {
          std::string res = "%res" + std::to_string(i);
          return intOut ? res : w.let("ptx.mul rn f32 " + res + ", %alpha : f32");
        };
        std::string value = scaled(e);
        if (kind == Epilogue::Pairs) {
          std::string next = scaled(e + 1);
          if (intOut) {
            w.op("ptx.st if " + ok + " global s32 " + at + ", " + value +
                 ", " + next + " : i64, i32, i32");
          } else if (out16) {
            // Little-endian: the even column in the low half.
            std::string packed = w.let(std::string("ptx.cvt_pack rn ") + outType +
                                       "x2 " + next + ", " + value + " : i32");
            w.op("ptx.st if " + ok + " global b32 " + at + ", " + packed +
                 " : i64, i32");
          } else {
            w.op("ptx.st if " + ok + " global f32 " + at + ", " + value +
                 ", " + next + " : i64, f32, f32");
          }
          continue;
        }
        if (withBeta && intOut) {
          std::string old =
              w.let("ptx.ld if " + ok + " global s32 " + at + " : i64 -> i32");
          value = w.let("ptx.add s32 " + old + ", " + value + " : i32");
        } else if (withBeta) {
          std::string old;
          if (out16) {
            std::string raw = w.let("ptx.ld if " + ok + " global b16 " + at +
                                    " : i64 -> " + outType);
            old = w.let(std::string("ptx.cvt f32 ") + outType + " " + raw +
                        " : " + outType + " -> f32");
          } else {
            old = w.let("ptx.ld if " + ok + " global f32 " + at + " : i64 -> f32");
          }
          value = w.let("ptx.fma rn f32 " + old + ", %beta, " + value + " : f32");
        }
        if (intOut) {
          w.op("ptx.st if " + ok + " global s32 " + at + ", " + value +
               " : i64, i32");
        } else if (out16) {
          std::string rounded = w.let(std::string("ptx.cvt rn ") + outType +
                                      " f32 " + value + " : f32 -> " + outType);
          w.op("ptx.st if " + ok + " global b16 " + at + ", " + rounded +
               " : i64, " + outType);
        } else {
          w.op("ptx.st if " + ok + " global f32 " + at + ", " + value +
               " : i64, f32");
        }
      }
    }
    w.op("ptx.bra ^ctile(" + nextTile + ", " + citNext + " : i32, i32)");
  }
  w.label("^done:");
  // No block of a cluster leaves while another may still multicast into
  // it or free its stages.
  if (cl > 1) {
    w.op("ptx.barrier_cluster_arrive release");
    w.op("ptx.barrier_cluster_wait acquire");
  }
  w.op("ptx.ret");
  out += w.text;
  out += "  }\n";
  return out;
}

std::vector<HopperGemmConfig> kaio::ops::kernels::getHopperGemmConfigs() {
  // 128 x 128 and (hopperGemmHasWideTile) 128 x 256 tiles (m64n128 /
  // m64n256 wgmma per consumer);
  // the host picks by shape. 16-bit inputs: C f32 or theirs, A and B in
  // either layout; FP8: C f32, f16 or bf16, A row-major and B column-major.
  std::vector<HopperGemmConfig> configs;
  // 16-bit and FP8 inputs also in clusters of 2 (B multicast).
  auto add = [&](GemmElem in, GemmElem out, bool aColMajor, bool bColMajor) {
    for (unsigned blockN : {128u, 256u})
      for (unsigned clusterM : {1u, 2u}) {
        if (blockN == 256 && !hopperGemmHasWideTile(in, out))
          continue;
        if (clusterM > 1 && !hopperGemmHasClusters(in))
          continue;
        HopperGemmConfig c;
        c.in = in;
        c.out = out;
        c.blockN = blockN;
        c.blockK = 128 / getGemmElemBytes(in);
        c.aColMajor = aColMajor;
        c.bColMajor = bColMajor;
        c.clusterM = clusterM;
        configs.push_back(c);
      }
  };
  for (GemmElem in : {GemmElem::F16, GemmElem::BF16})
    for (GemmElem out : {GemmElem::F32, in})
      for (bool aColMajor : {false, true})
        for (bool bColMajor : {false, true})
          add(in, out, aColMajor, bColMajor);
  for (GemmElem in : {GemmElem::E4M3, GemmElem::E5M2})
    for (GemmElem out : {GemmElem::F32, GemmElem::F16, GemmElem::BF16})
      add(in, out, false, true);
  // f32 as tf32: K-major like FP8, C f32.
  add(GemmElem::F32, GemmElem::F32, false, true);
  // s8: K-major too; C s32 (exact sums, 128-column tiles) or dequantized
  // f32, f16, bf16.
  for (GemmElem out :
       {GemmElem::S32, GemmElem::F32, GemmElem::F16, GemmElem::BF16})
    add(GemmElem::S8, out, false, true);
  return configs;
}

/// The module's text, each op where PtxWriter wrote it.
static std::string hopperKernelsText() {
  std::string text = "module attributes {ptx.target = \"sm_90a\"} {\n";
  for (const HopperGemmConfig &c : getHopperGemmConfigs())
    text += hopperGemmSource(c);
  for (const HopperAttentionConfig &c : getHopperAttentionConfigs())
    text += hopperAttentionSource(c);
  for (const HopperAttentionBackwardConfig &c :
       getHopperAttentionBackwardConfigs())
    text += hopperAttentionBackwardSource(c);
  return text + "}\n";
}

mlir::OwningOpRef<mlir::ModuleOp>
kaio::ops::kernels::parseHopperKernels(mlir::MLIRContext &context) {
  context.loadDialect<ptx::PTXDialect, mlir::arith::ArithDialect,
                      mlir::math::MathDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(hopperKernelsText(),
                                              mlir::ParserConfig(&context));
  // PtxWriter's nested calls wrote their ops in the host compiler's
  // argument order: reorder them by operand (ptx-order-operand-trees) so
  // that every build has the same kernels.
  if (module)
    ptx::orderOperandTrees(*module);
  return module;
}

std::string kaio::ops::kernels::hopperKernelsModule() {
  // Text that does not parse is reported (stderr, with its line) and
  // returned as written, so that its reader fails too.
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = parseHopperKernels(context);
  if (!module)
    return hopperKernelsText();
  std::string ordered;
  llvm::raw_string_ostream os(ordered);
  module->print(os);
  return ordered;
}
