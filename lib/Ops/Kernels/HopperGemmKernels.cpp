//===- HopperGemmKernels.cpp - TMA + wgmma GEMM for sm_90a ----------------===//
//
// The warp-specialised Hopper GEMM, written at the ptx-dialect level until
// the kaio dialect has warpgroup tiles (issue 12): C (row-major, ldc; f32
// or 16-bit) = A (M x K) * B (K x N), f16 or bf16 inputs with A and B row-
// or column-major, or FP8 (e4m3, e5m2) inputs with A row-major and B
// column-major (wgmma reads 8-bit operands K-major only); any leading
// dimension of 16-byte lines. K tiles are 128 bytes deep (64 16-bit or 128
// 8-bit elements), one wgmma per 32 bytes of K (k16 or k32).
//
// A persistent block of three warpgroups walks the BM x BN tiles of C
// (tile = blockIdx.x, + gridDim.x, ...; in groups of 8 tile rows, M
// fastest within a group, for L2 reuse):
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
//    (wgmma.wait_group 1) and frees the previous stage;
//  - the epilogue stores each consumer's f32 accumulators with bounds checks.
//    Only 128-column tiles read C (beta != 0): at 128 x 256 ptxas batches
//    the loads of C next to 128 live accumulators and spills, so the wide
//    variant traps on beta != 0 (the library picks it for beta == 0 only).
// The ring position (stage, phase parity) runs on across tiles. TMA
// zero-fills rows and columns past M, N and K, so any shape works as long
// as A's and B's rows are 16-byte multiples (K, N multiples of 8).
//
//===----------------------------------------------------------------------===//

#include "OpsKernels.h"
#include "PtxWriter.h"

#include "llvm/Support/FormatVariadic.h"

#include <string>

using namespace kaio::ops::kernels;


std::string kaio::ops::kernels::hopperGemmSource(const HopperGemmConfig &c) {
  const unsigned accs = c.blockN / 2; // f32 accumulators per thread
  const unsigned inBytes = getGemmElemBytes(c.in);
  const unsigned aBytes = c.blockM * c.blockK * inBytes;
  const unsigned bBytes = c.blockK * c.blockN * inBytes;
  const unsigned stageBytes = aBytes + bBytes;
  const unsigned smem = stageBytes * c.stages;
  // One wgmma covers 32 bytes of K: k16 of 16-bit, k32 of 8-bit elements.
  const unsigned kInstr = 32 / inBytes;
  const char *type = getGemmElemName(c.in);
  const char *outType = getGemmElemName(c.out);
  const bool out16 = c.out != GemmElem::F32;
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
      "%beta: f32 {{ptx.name = \"beta\"}) attributes {{reqntid = array<i32: 384>, "
      "dynamic_smem = {1} : i64} {{\n",
      name, smem, outType);

  // Common values; thread 0 initialises the barriers: full[s] waits for the
  // producer's arrival and the stage's bytes, empty[s] for both consumers.
  std::string tid = w.let("ptx.sreg tid.x : i32");
  std::string c7 = w.i32(7);
  std::string wg = w.let("ptx.shr u32 " + tid + ", " + c7 + " : (i32, i32) -> i32");
  std::string bx = w.let("ptx.sreg ctaid.x : i32");
  std::string nbx = w.let("ptx.sreg nctaid.x : i32");
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
  std::string numTiles = w.mul32(tilesM, tilesN);
  constexpr unsigned kGroupM = 8; // tile rows per rasterization group
  std::string groupSize = w.mul32(tilesN, w.i32(kGroupM));
  std::vector<std::string> full(c.stages), empty(c.stages);
  for (unsigned s = 0; s < c.stages; ++s) {
    full[s] = w.add32(bars, w.i32(8 * s));
    empty[s] = w.add32(bars, w.i32(8 * (c.stages + s)));
    w.op("ptx.mbarrier_init if " + first + " [" + full[s] + "], " + one + " : i32");
    w.op("ptx.mbarrier_init if " + first + " [" + empty[s] + "], " + two + " : i32");
  }
  w.op("ptx.fence_mbarrier_init");
  w.op("ptx.bar_sync 0");
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
  auto tileOrigin = [&](const std::string &tile) {
    std::string group = w.let("ptx.div u32 " + tile + ", " + groupSize + " : i32");
    std::string firstM = w.mul32(group, w.i32(kGroupM));
    std::string rowsLeft = w.let("ptx.sub s32 " + tilesM + ", " + firstM + " : i32");
    std::string groupM =
        w.let("ptx.min u32 " + rowsLeft + ", " + w.i32(kGroupM) + " : i32");
    std::string inGroup = w.let("ptx.rem u32 " + tile + ", " + groupSize + " : i32");
    std::string tm = w.add32(
        firstM, w.let("ptx.rem u32 " + inGroup + ", " + groupM + " : i32"));
    std::string tn = w.let("ptx.div u32 " + inGroup + ", " + groupM + " : i32");
    return std::make_pair(w.mul32(tm, w.i32(c.blockM)),
                          w.mul32(tn, w.i32(c.blockN)));
  };
  // Tiles left: `tile` < numTiles.
  auto tileLoop = [&](llvm::StringRef name, llvm::StringRef body) {
    w.label("^" + name + "(%" + name + "_tile: i32, %" + name + "_it: i32):");
    std::string more = w.setp("lt", "%" + name.str() + "_tile", numTiles);
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
  auto [row0, col0] = tileOrigin("%ptile_tile");
  w.op("ptx.bra ^produce(" + zero + ", %ptile_it : i32, i32)");
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
  loadTile("%mb", w.add32(ps.buffer, w.i32(aBytes)), col0, c.blockN,
           !c.bColMajor);
  std::string pnext = w.add32("%pkt", one);
  std::string pitNext = w.add32("%pit", one);
  std::string pmore = w.setp("lt", pnext, kTiles);
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
  std::string fz = w.let("ptx.constant 0.000000e+00 : f32");
  std::vector<std::string> zeros(accs, fz);
  std::string accTypes;
  for (unsigned i = 0; i < accs; ++i)
    accTypes += std::string(i ? ", " : "") + "f32";
  std::string accArgs;
  for (unsigned i = 0; i < accs; ++i)
    accArgs += llvm::formatv("{0}%acc{1}: f32", i ? ", " : "", i).str();
  std::string lane128 = w.let("ptx.and b32 " + tid + ", " + w.i32(127) + " : i32");
  std::string wgLeader = w.setp("eq", lane128, zero);
  w.op("ptx.bra ^ctile(" + bx + ", " + zero + " : i32, i32)");
  tileLoop("ctile", "ctile_body");
  auto [crow0, ccol0] = tileOrigin("%ctile_tile");
  w.op("ptx.bra ^consume(" + zero + ", %ctile_it, " + joined(zeros) +
       " : i32, i32, " + accTypes + ")");
  w.label("^consume(%ckt: i32, %cit: i32, " + accArgs + "):");
  Stage cs = stageOf("%cit");
  w.waitParity(cs.full, cs.parity, "consumer_wait", "consumer_mma");
  std::string da = w.descriptor(w.add32(cs.buffer, aRows), descA);
  std::string db = w.descriptor(w.add32(cs.buffer, w.i32(aBytes)), descB);
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
  for (unsigned kk = 0; kk < c.blockK / kInstr; ++kk) {
    std::string dak = kk ? w.add64(da, w.i64(kStep(aMnMajor, kk))) : da;
    std::string dbk = kk ? w.add64(db, w.i64(kStep(bMnMajor, kk))) : db;
    std::string d = w.letMany(
        accs, llvm::formatv("ptx.wgmma_mma_async m64n{0}k{6} f32 {1} "
                            "{1} {{{2}}, {3}, {4}{5} : f32",
                            c.blockN, type, joined(acc), dak, dbk, trans,
                            kInstr)
                  .str());
    for (unsigned i = 0; i < accs; ++i)
      acc[i] = d + "#" + std::to_string(i);
  }
  // Keep this group in flight; once the previous one is done its stage is
  // free (the first k tile of a tile has no previous group).
  w.op("ptx.wgmma_commit_group");
  w.op("ptx.wgmma_wait_group 1");
  std::string notFirst = w.setp("ne", "%ckt", zero);
  std::string release = w.let("ptx.and pred " + wgLeader + ", " + notFirst + " : i1");
  std::string prevIt = w.add32("%cit", w.i32(-1));
  Stage prev = stageOf(prevIt);
  w.op("ptx.mbarrier_arrive if " + release + " shared [" + prev.empty + "] : i32");
  std::string cnext = w.add32("%ckt", one);
  std::string citNext = w.add32("%cit", one);
  std::string cmore = w.setp("lt", cnext, kTiles);
  w.op("ptx.cond_bra " + cmore + ", ^consume(" + cnext + ", " + citNext + ", " +
       joined(acc) + " : i32, i32, " + accTypes + "), ^epilogue(" +
       joined(acc) + " : " + accTypes + ")");

  // Epilogue: the m16n8 accumulator layout, once per 8 columns.
  std::string resArgs;
  for (unsigned i = 0; i < accs; ++i)
    resArgs += llvm::formatv("{0}%res{1}: f32", i ? ", " : "", i).str();
  w.label("^epilogue(" + resArgs + "):");
  // The last group: wait for it and free its stage.
  w.op("ptx.wgmma_wait_group 0");
  w.op("ptx.mbarrier_arrive if " + wgLeader + " shared [" + cs.empty + "] : i32");
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
  std::string cBase = w.add64("%c", colBytes);
  std::string nextTile = w.add32("%ctile_tile", nbx);
  // Without beta, pairs of neighbouring columns (even, the next; N is a
  // multiple of 8, so both are in bounds or neither) go out as one store
  // (f32: an 8-byte st.v2; 16-bit: the pair packed into one 4-byte word)
  // when C's rows allow it (C aligned to the pair, ldc even); else one
  // element at a time.
  const unsigned pairBytes = 2 * outBytes;
  std::string cLow = w.let("ptx.cvt u32 u64 %c : i64 -> i32");
  std::string rowStride =
      w.let("ptx.mul lo u32 %ldc, " + w.i32(outBytes) + " : i32");
  std::string misaligned = w.let(
      "ptx.and b32 " + w.let("ptx.or b32 " + cLow + ", " + rowStride + " : i32") +
      ", " + w.i32(pairBytes - 1) + " : i32");
  std::string pairs = w.setp("eq", misaligned, zero);
  w.op("ptx.cond_bra " + readC + ", ^store_beta, ^store_check");
  w.label("^store_check:");
  w.op("ptx.cond_bra " + pairs + ", ^store_pairs, ^store");
  const bool readsC = c.blockN <= 128;
  enum class Epilogue { Beta, Scalar, Pairs };
  for (Epilogue kind : {Epilogue::Beta, Epilogue::Scalar, Epilogue::Pairs}) {
    const bool withBeta = kind == Epilogue::Beta;
    w.label(withBeta                     ? "^store_beta:"
            : kind == Epilogue::Scalar ? "^store:"
                                         : "^store_pairs:");
    if (withBeta && !readsC) {
      w.op("ptx.trap");
      w.op("ptx.ret");
      continue;
    }
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
        std::string value = w.let("ptx.mul rn f32 %res" + std::to_string(e) +
                                  ", %alpha : f32");
        if (kind == Epilogue::Pairs) {
          std::string next = w.let("ptx.mul rn f32 %res" +
                                   std::to_string(e + 1) + ", %alpha : f32");
          if (out16) {
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
        if (withBeta) {
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
        if (out16) {
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
  w.op("ptx.ret");
  out += w.text;
  out += "  }\n";
  return out;
}

std::vector<HopperGemmConfig> kaio::ops::kernels::getHopperGemmConfigs() {
  // 128 x 128 and 128 x 256 tiles (m64n128 / m64n256 wgmma per consumer);
  // the host picks by shape. 16-bit inputs: C f32 or theirs, A and B in
  // either layout; FP8: C f32, f16 or bf16, A row-major and B column-major.
  std::vector<HopperGemmConfig> configs;
  auto add = [&](GemmElem in, GemmElem out, bool aColMajor, bool bColMajor) {
    for (unsigned blockN : {128u, 256u}) {
      HopperGemmConfig c;
      c.in = in;
      c.out = out;
      c.blockN = blockN;
      c.blockK = 128 / getGemmElemBytes(in);
      c.aColMajor = aColMajor;
      c.bColMajor = bColMajor;
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
  return configs;
}

std::string kaio::ops::kernels::hopperKernelsModule() {
  std::string text = "module attributes {ptx.target = \"sm_90a\"} {\n";
  for (const HopperGemmConfig &c : getHopperGemmConfigs())
    text += hopperGemmSource(c);
  for (const HopperAttentionConfig &c : getHopperAttentionConfigs())
    text += hopperAttentionSource(c);
  return text + "}\n";
}
