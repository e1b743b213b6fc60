//===- HopperAttentionKernels.cpp - FlashAttention forward for sm_90a ------===//
//
// The attention forward of the sm_90a path, FlashAttention-3's structure at
// the ptx-dialect level: O = softmax(scale * Q K^T [+ causal mask]) V per
// (batch, head), f16 or bf16, head dim 64, 128 or 256.
//
// A block of a producer warpgroup and two or three consumers owns 64 query
// rows per consumer (128 or 192) of one (batch, head):
//  - warpgroup 0 is the producer (setmaxnreg.dec): one thread loads the Q
//    tile once and streams blocks of K and V by TMA (4-d tensor maps
//    over [batch][seq][heads][dim] with any strides: bshd and bhsd alike)
//    into a ring of `stages` buffers, K and V each guarded by their own
//    full/empty mbarriers and loaded in the order they are read (K_0, then
//    K_j with V_{j-1}); blocks of 128 keys up to head dim 128, of 64 at
//    256 (hopperAttentionKeys);
//  - warpgroups 1, 2 (and 3) are consumers (setmaxnreg.inc), 64 query rows
//    each (three at head dim 64: FlashAttention-3's 192-row tile, the
//    consumers at 160 registers where two get 232):
//    S = Q K^T by wgmma (both operands K-major from 128-byte-swizzled
//    shared memory), the online softmax on the accumulators in registers
//    (exp2 with the scale folded in; a row's scores live in one quad,
//    reduced with two shuffles), P converted in registers to the A operand
//    of O += P V (wgmma with A from registers, V N-major), O rescaled when
//    the running maximum grows. The softmax of block j runs while the
//    tensor cores compute P_{j-1} V_{j-1} (FlashAttention-3's
//    intra-warpgroup overlap: two wgmma groups in flight); in the `_pp`
//    kernels the consumers take turns issuing, round robin (ping-pong:
//    one's softmax runs while another's products do);
//  - the epilogue divides by the row sums and stores O (rows that see no
//    key get 0) and, when `lse` is not null, each row's natural logsumexp
//    (f32 [batch][heads][seq_q]; -inf for a row that sees no key).
// Masks: row i sees keys [i + offset - window_left, i + offset +
// window_right] (negative: unbounded; causal is window_right 0), offset
// seq_k - seq_q when bottom-right aligned, 0 when top-left; key blocks
// outside every row's window are not loaded. GQA: head h reads K/V head
// h / group. Packed variable-length batches: cu_q / cu_k (s32, batch + 1
// offsets into batch-1 tensors) or null.
//
//===----------------------------------------------------------------------===//

#include "HopperAttentionSupport.h"
#include "OpsKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include <cassert>

using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::hopper_attention;

std::string
kaio::ops::kernels::hopperAttentionSource(const HopperAttentionConfig &c) {
  const unsigned d = c.headDim;
  const unsigned rowsQ = hopperAttentionRows(c), keys = hopperAttentionKeys(d);
  const unsigned consumers = c.consumers;
  assert((consumers == 2 ||
          (consumers == 3 && hopperAttentionWideBuilt(d))) &&
         "two consumers, or three where the 160-register split fits");
  const unsigned keyShift = llvm::Log2_32(keys);
  const unsigned qBytes = rowsQ * d * 2, kvBytes = keys * d * 2;
  const unsigned stageBytes = 2 * kvBytes;
  const unsigned smem = qBytes + c.stages * stageBytes;
  const unsigned sAccs = keys / 2, oAccs = d / 2;
  const char *type = c.bf16 ? "bf16" : "f16";
  const std::string name = hopperAttentionName(c);
  PtxWriter w;
  std::string out;
  out += llvm::formatv("  ptx.var shared @{0}_tiles : b8 extern align 1024\n"
                       "  ptx.var shared @{0}_bars : b64 [{1}] align 8\n",
                       name, 1 + 4 * c.stages);
  out += llvm::formatv(
      "  ptx.entry @{0}(%mq: i64 {{ptx.tensor_map, ptx.name = \"q_map\"}, "
      "%mk: i64 {{ptx.tensor_map, ptx.name = \"k_map\"}, "
      "%mv: i64 {{ptx.tensor_map, ptx.name = \"v_map\"}, "
      "%o: i64 {{ptx.ptr = {1}, ptx.name = \"o\"}, "
      "%o_batch: i32 {{ptx.name = \"o_batch\"}, %o_seq: i32 {{ptx.name = "
      "\"o_seq\"}, %o_head: i32 {{ptx.name = \"o_head\"}, "
      "%seq_q: i32 {{ptx.name = \"seq_q\"}, %seq_k: i32 {{ptx.name = \"seq_k\"}, "
      "%group: i32 {{ptx.name = \"group\"}, %scale_log2: f32 {{ptx.name = "
      "\"scale_log2\"}, %window_left: i32 {{ptx.name = \"window_left\", "
      "ptx.signed}, %window_right: i32 {{ptx.name = \"window_right\", "
      "ptx.signed}, %bottom_right: i32 {{ptx.name = \"bottom_right\"}, "
      "%lse: i64 {{ptx.ptr = f32, ptx.name = \"lse\"}, "
      "%lse_stride: i32 {{ptx.name = \"lse_stride\"}, "
      "%cu_q: i64 {{ptx.ptr = i32, ptx.readonly, ptx.name = \"cu_q\"}, "
      "%cu_k: i64 {{ptx.ptr = i32, ptx.readonly, ptx.name = \"cu_k\"}) "
      "attributes {{reqntid = array<i32: {3}>, dynamic_smem = {2} : i64} {{\n",
      name, type, smem, hopperAttentionThreads(c));

  // Block coordinates, barriers, the number of key blocks.
  BlockSetup b = blockSetup(w);
  const std::string &tid = b.tid, &wg = b.wg, &qStart = b.qStart,
                    &seqQ = b.seqQ, &kStart = b.kStart, &seqK = b.seqK,
                    &tmaBatch = b.tmaBatch;
  std::string head = w.let("ptx.sreg ctaid.y : i32");
  std::string kvHead = w.let("ptx.div u32 " + head + ", %group : i32");
  std::string q0 = w.mul32(reversedBlockX(w), w.i32(rowsQ));
  std::string zero = w.i32(0), one = w.i32(1);
  // Query blocks past this sequence's end have nothing to do.
  std::string idle = w.setp("ge", q0, seqQ);
  w.op("ptx.cond_bra " + idle + ", ^done, ^start");
  w.label("^start:");
  std::string tiles = w.let("ptx.addressof @" + name + "_tiles : i32");
  std::string bars = w.let("ptx.addressof @" + name + "_bars : i32");
  std::string first = w.setp("eq", tid, zero);
  // Barriers: Q's, then per stage K's full and empty, V's full and empty
  // (K and V apart: S = Q K^T starts before V lands, and a K buffer is
  // refilled once S is done, before P V is); an empty barrier counts one
  // arrival per consumer.
  std::string qBar = bars;
  auto ringBar = [&](unsigned which) {
    return w.add32(bars, w.i32(8 * (1 + which * c.stages)));
  };
  std::string fullK0 = ringBar(0), emptyK0 = ringBar(1), fullV0 = ringBar(2),
              emptyV0 = ringBar(3);
  w.op("ptx.mbarrier_init if " + first + " [" + qBar + "], " + one + " : i32");
  for (unsigned s = 0; s < c.stages; ++s)
    for (unsigned which = 0; which < 4; ++which)
      w.op("ptx.mbarrier_init if " + first + " [" +
           w.add32(ringBar(which), w.i32(8 * s)) + "], " +
           (which % 2 ? w.i32(consumers) : one) + " : i32");
  w.op("ptx.fence_mbarrier_init");
  w.op("ptx.bar_sync 0");
  // Row i sees keys [i + offset - window_left, i + offset + window_right]
  // (a negative window: unbounded on that side) below seq_k; offset is
  // seq_k - seq_q when bottom-right aligned. Key blocks [jBegin, jEnd)
  // hold every key a row of this block sees.
  Window win = windowOf(w, seqQ, seqK);
  const std::string &offset = win.offset, &hasLeft = win.hasLeft,
                    &hasRight = win.hasRight;
  BlockRange range = keyBlocksOf(w, win, q0, rowsQ, seqK, keyShift);
  const std::string &jBegin = range.begin, &numBlocks = range.count;
  std::string eight = w.i32(8);
  std::string qTiles = w.add32(tiles, zero);
  std::string kvTiles = w.add32(tiles, w.i32(qBytes));
  std::string isProducer = w.setp("eq", wg, zero);
  w.op("ptx.cond_bra " + isProducer + ", ^producer, ^consumer");

  // Ring position `it` of K (or V): its buffer, barriers and phase parity.
  struct Stage : RingSlot {
    std::string tile;
  };
  auto stageOf = [&](const std::string &it, bool v) {
    Stage s{ringSlot(w, it, c.stages, v ? fullV0 : fullK0,
                     v ? emptyV0 : emptyK0),
            ""};
    s.tile = w.add32(kvTiles, w.add32(w.mul32(s.index, w.i32(stageBytes)),
                                      w.i32(v ? kvBytes : 0)));
    return s;
  };

  // Producer: Q once, then K and V of each key block into the ring.
  w.label("^producer:");
  // The register file split: 40 + 2 x 232 or, with three consumers
  // (FlashAttention-3's split), 32 + 3 x 160 per 128 threads of 512.
  const unsigned producerRegs = consumers == 3 ? 32 : 40,
                 consumerRegs = consumers == 3 ? 160 : 232;
  static_assert(32 * 128 + 3 * 160 * 128 <= 65536 &&
                    40 * 128 + 2 * 232 * 128 <= 65536,
                "the splits fit the register file");
  w.op("ptx.setmaxnreg dec " + std::to_string(producerRegs));
  w.op("ptx.cond_bra " + first + ", ^load_q, ^done");
  w.label("^load_q:");
  w.op("ptx.mbarrier_arrive expect_tx shared [" + qBar + "], " + w.i32(qBytes) +
       " : i32");
  loadTile(w, d, qTiles, "%mq", w.add32(qStart, q0), head, tmaBatch, rowsQ,
           qBar);
  // K_0, then K_j and V_{j-1} for j = 1 ... numBlocks - 1, then the last
  // V: the order the consumers read them in (S_j = Q K_j^T is issued with
  // O += P_{j-1} V_{j-1}).
  std::string anyBlocks = w.setp("ne", numBlocks, zero);
  w.op("ptx.cond_bra " + anyBlocks + ", ^produce(" + zero + " : i32), ^done");
  w.label("^produce(%pj: i32):");
  auto produce = [&](const std::string &it, bool v, const std::string &map,
                     llvm::StringRef tag) {
    Stage ps = stageOf(it, v);
    waitSlotFree(w, ps, tag);
    w.op("ptx.mbarrier_arrive expect_tx shared [" + ps.full + "], " +
         w.i32(kvBytes) + " : i32");
    // Ring position it holds key block jBegin + it.
    std::string k0 =
        w.add32(kStart, w.mul32(w.add32(jBegin, it), w.i32(keys)));
    loadTile(w, d, ps.tile, map, k0, kvHead, tmaBatch, keys, ps.full);
  };
  std::string kMore = w.setp("lt", "%pj", numBlocks);
  w.op("ptx.cond_bra " + kMore + ", ^produce_k, ^produce_v_check");
  w.label("^produce_k:");
  produce("%pj", false, "%mk", "producer_k");
  w.op("ptx.bra ^produce_v_check");
  w.label("^produce_v_check:");
  std::string vDue = w.setp("ne", "%pj", zero);
  w.op("ptx.cond_bra " + vDue + ", ^produce_v, ^produce_next");
  w.label("^produce_v:");
  produce(w.add32("%pj", w.i32(-1)), true, "%mv", "producer_v");
  w.op("ptx.bra ^produce_next");
  w.label("^produce_next:");
  std::string pnext = w.add32("%pj", one);
  std::string pmore = w.setp("le", pnext, numBlocks);
  w.op("ptx.cond_bra " + pmore + ", ^produce(" + pnext + " : i32), ^done");

  // Consumers: warpgroup 1 + g owns query rows q0 + 64 g ... + 63; a thread
  // holds rows r0 and r0 + 8 (h = 0, 1) of its warp's 16.
  w.label("^consumer:");
  w.op("ptx.setmaxnreg inc " + std::to_string(consumerRegs));
  ConsumerLanes cl = consumerLanes(w, b);
  const std::string &g = cl.g, &pairCol = cl.pairCol, &wgLeader = cl.leader;
  std::string row0 = w.add32(w.add32(q0, w.mul32(g, w.i32(64))),
                             w.add32(w.mul32(cl.warp, w.i32(16)), cl.quad));
  std::string rows[2] = {row0, w.add32(row0, eight)};
  std::string descHigh = w.i64(swizzle128DescriptorHigh());
  std::string descV = w.i64(swizzle128DescriptorHigh(keys * 128));
  std::string qDesc =
      w.descriptor(w.add32(qTiles, w.mul32(g, w.i32(64 * 128))), descHigh,
                   /*clustered=*/false);
  std::string fz = w.f32("0.000000e+00");
  std::string negInf = w.f32("0xFF800000");
  w.waitParity(qBar, zero, "q_wait", "q_ready");

  const unsigned pRegs = keys / 16 * 4; // P as A fragments, 16-bit pairs
  const std::string oTypes = repeatedTypes(oAccs, "f32");
  const std::string pTypes = repeatedTypes(pRegs, "i32");
  std::vector<std::string> oZero(oAccs, fz);

  // S = Q K^T of the K tile at `kTile`, issued (not waited for): d / 16
  // k-steps, 32 bytes each along a 128-byte row, then the next atom.
  auto issueQK = [&](const std::string &kTile) {
    return issueSharedProduct(
        w, type, keys, d, qDesc, rowsQ,
        w.descriptor(kTile, descHigh, /*clustered=*/false), keys);
  };
  // O += P V of the V tile at `vTile`, issued: P's k16 chunk t is S columns
  // 16 t .. 16 t + 15, which in the accumulator layout are A's fragment.
  auto issuePV = [&](std::vector<std::string> o,
                     const std::vector<std::string> &pA,
                     const std::string &vTile) {
    return issueRegisterProduct(
        w, type, d, std::move(o), pA,
        w.descriptor(vTile, descV, /*clustered=*/false));
  };
  // The online softmax of block `j`'s scores: masked, scaled (log2 units),
  // the rows' new maxima and sums, P packed as A fragments, and the factor
  // (alpha) the older O must be scaled by.
  struct Softmax {
    std::string max[2], sum[2], alpha[2];
    std::vector<std::string> p, pA; // P in f32, then packed (packP)
  };
  // Sums (or maxima) of a row's values as a tree of four chains, not one
  // chain of 32 dependent adds.
  auto reduceRow = [&](const std::vector<std::string> &v, const char *op) {
    std::vector<std::string> part(v.begin(),
                                  v.begin() + std::min<size_t>(4, v.size()));
    auto combine = [&](const std::string &a, const std::string &b) {
      return w.let(std::string("ptx.") + op + " f32 " + a + ", " + b +
                   " : f32");
    };
    for (size_t i = part.size(); i < v.size(); ++i)
      part[i % 4] = combine(part[i % 4], v[i]);
    while (part.size() > 1) {
      std::vector<std::string> pairs;
      for (size_t i = 0; i + 1 < part.size(); i += 2)
        pairs.push_back(combine(part[i], part[i + 1]));
      if (part.size() % 2)
        pairs.push_back(part.back());
      part = std::move(pairs);
    }
    return part.front();
  };
  // The online softmax of block `j`'s raw scores `s`. With `masked`, keys
  // outside a row's window or past seq_k count as -inf; a block every row
  // of the warpgroup sees whole skips those compares (FlashAttention-3's
  // split of masked and unmasked iterations). The maxima are taken on the
  // raw scores and scaled once; P = 2^(s scale_log2 - max), one fma and an
  // ex2.approx.ftz (what underflows to a subnormal is 0 next to the row's
  // largest term, 1).
  auto softmax = [&](const std::vector<std::string> &s, const std::string &j,
                     const std::string m[2], const std::string l[2],
                     bool masked) {
    Softmax out;
    std::vector<std::string> x(s);
    if (masked) {
      // Element e is row rows[(e/2)%2], key keys j + 8 (e/4) + pairCol +
      // e%2.
      std::string kBase = w.add32(w.mul32(j, w.i32(keys)), pairCol);
      KeySpan span[2] = {visibleKeys(w, win, rows[0], seqK),
                         visibleKeys(w, win, rows[1], seqK)};
      for (unsigned e = 0; e < sAccs; ++e) {
        unsigned h = (e / 2) % 2;
        std::string key = w.add32(kBase, w.i32(8 * (e / 4) + e % 2));
        std::string visible = w.let(
            "ptx.and pred " + w.setp("lt", key, span[h].hi, "s32") + ", " +
            w.setp("ge", key, span[h].lo, "s32") + " : i1");
        x[e] = w.let("ptx.selp f32 " + s[e] + ", " + negInf + ", " +
                     visible + " : f32");
      }
    }
    std::vector<std::string> ofRow[2];
    for (unsigned e = 0; e < sAccs; ++e)
      ofRow[(e / 2) % 2].push_back(x[e]);
    std::string negBase[2];
    for (unsigned h = 0; h < 2; ++h) {
      std::string raw = reduceRow(ofRow[h], "max");
      for (unsigned xorLane : {1u, 2u})
        raw = w.let("ptx.max f32 " + raw + ", " + w.shflXor(raw, xorLane) +
                    " : f32");
      out.max[h] = w.let(
          "ptx.max f32 " + m[h] + ", " +
          w.let("ptx.mul rn f32 " + raw + ", %scale_log2 : f32") + " : f32");
      // Nothing visible yet: subtract 0 so that exp2 gives 0, not NaN.
      std::string none = w.let("ptx.setp equ f32 " + out.max[h] + ", " +
                               negInf + " : f32");
      std::string base = w.let("ptx.selp f32 " + fz + ", " + out.max[h] +
                               ", " + none + " : f32");
      negBase[h] = w.let("ptx.neg f32 " + base + " : f32");
      out.alpha[h] = w.let(
          "ptx.ex2 approx ftz f32 " +
          w.let("ptx.add rn f32 " + m[h] + ", " + negBase[h] + " : f32") +
          " : f32");
    }
    std::vector<std::string> p(sAccs);
    std::vector<std::string> pOfRow[2];
    for (unsigned e = 0; e < sAccs; ++e) {
      unsigned h = (e / 2) % 2;
      p[e] = w.let("ptx.ex2 approx ftz f32 " +
                   w.let("ptx.fma rn f32 " + x[e] + ", %scale_log2, " +
                         negBase[h] + " : f32") +
                   " : f32");
      pOfRow[h].push_back(p[e]);
    }
    for (unsigned h = 0; h < 2; ++h)
      out.sum[h] = w.let("ptx.fma rn f32 " + l[h] + ", " + out.alpha[h] +
                         ", " + reduceRow(pOfRow[h], "add rn") + " : f32");
    out.p = std::move(p);
    return out;
  };
  // P as wgmma A fragments (16-bit pairs). Packed only once no wgmma is in
  // flight: the packed registers flow into the loop's P registers, which
  // the previous block's P V reads while it runs; defining them earlier
  // makes ptxas serialise every wgmma (C7513), and is a hazard.
  auto packP = [&](Softmax &sm) { sm.pA = accumulatorAsA(w, type, sm.p); };
  auto releaseStage = [&](const Stage &st) {
    w.op("ptx.mbarrier_arrive if " + wgLeader + " shared [" + st.empty +
         "] : i32");
  };
  auto loopArgs = [&](const std::string &j, const Softmax &sm,
                      const std::vector<std::string> &o) {
    return "^block(" + j + ", " + sm.max[0] + ", " + sm.max[1] + ", " +
           sm.sum[0] + ", " + sm.sum[1] + ", " + joined(o) + ", " +
           joined(sm.pA) + " : i32, f32, f32, f32, f32, " + oTypes + ", " +
           pTypes + ")";
  };

  // Ping-pong (FlashAttention-3's inter-warpgroup schedule): warpgroup g
  // issues its wgmmas only after warpgroup g - 1 (mod the consumers) has
  // issued its own, so that one warpgroup's softmax runs while another's
  // products keep the tensor cores busy. Named barrier 1 + g (two
  // warpgroups, 256 threads): g syncs on it before an issue point and, once
  // it has issued, arrives on g + 1's. The last warpgroup arrives once
  // ahead on warpgroup 0's barrier (0 goes first) and not after its last
  // issue (no arrival left over): all issue numBlocks + 1 times.
  // ifG[i]: the guard "warpgroup g is i" (with two, the second is "not
  // the first").
  std::vector<std::string> ifG;
  std::string isG0 = w.setp("eq", g, zero);
  for (unsigned i = 0; i < consumers; ++i)
    ifG.push_back(i == 0           ? "if " + isG0
                  : consumers == 2 ? "if not " + isG0
                                   : "if " + w.setp("eq", g, w.i32(i)));
  auto barrierOf = [](unsigned i) { return std::to_string(1 + i); };
  auto issueTurn = [&] {
    if (!c.pingPong)
      return;
    for (unsigned i = 0; i < consumers; ++i)
      w.op("ptx.bar_sync " + ifG[i] + " " + barrierOf(i) + ", 256");
  };
  auto passTurn = [&](bool last) {
    if (!c.pingPong)
      return;
    for (unsigned i = 0; i < consumers; ++i)
      if (!last || i + 1 < consumers)
        w.op("ptx.bar_arrive " + ifG[i] + " " +
             barrierOf((i + 1) % consumers) + ", 256");
  };

  // Block 0 alone: its scores and P.
  std::string anyKeys = w.setp("ne", numBlocks, zero);
  w.op("ptx.cond_bra " + anyKeys + ", ^first_block, ^finish(" + negInf + ", " +
       negInf + ", " + fz + ", " + fz + ", " + joined(oZero) +
       " : f32, f32, f32, f32, " + oTypes + ")");
  w.label("^first_block:");
  if (c.pingPong)
    w.op("ptx.bar_arrive " + ifG[consumers - 1] + " " + barrierOf(0) +
         ", 256");
  Stage k0 = stageOf(zero, false);
  w.waitParity(k0.full, k0.parity, "k0_wait", "k0_ready");
  issueTurn();
  w.op("ptx.wgmma_fence");
  std::vector<std::string> s0Scores = issueQK(k0.tile);
  passTurn(false);
  w.op("ptx.wgmma_wait_group 0");
  releaseStage(k0);
  std::string mInit[2] = {negInf, negInf}, lInit[2] = {fz, fz};
  Softmax sm0 = softmax(s0Scores, jBegin, mInit, lInit, /*masked=*/true);
  packP(sm0);
  w.op("ptx.bra " + loopArgs(one, sm0, oZero));

  // Block j >= 1 with P of block j - 1 in hand: S_j = Q K_j^T and O +=
  // P_{j-1} V_{j-1} run on the tensor cores while the softmax of S_j runs
  // (FlashAttention-3's intra-warpgroup overlap); K_j is released once S_j
  // is done, V_{j-1} once P V is, and O is rescaled then.
  w.label("^block(%j: i32, %m0: f32, %m1: f32, %l0: f32, %l1: f32, " +
          blockArgs("o", oAccs, "f32") + ", " + blockArgs("p", pRegs, "i32") + "):");
  Stage prevV = stageOf(w.add32("%j", w.i32(-1)), true);
  std::string more = w.setp("lt", "%j", numBlocks);
  w.op("ptx.cond_bra " + more + ", ^choose, ^last");
  // Block jBegin + j needs its mask unless every row of this warpgroup sees
  // all of its keys: they lie below seq_k, at or left of the first row's
  // right edge and at or right of the last row's left edge.
  w.label("^choose:");
  std::string kLo = w.mul32(w.add32(jBegin, "%j"), w.i32(keys));
  std::string kLast = w.add32(kLo, w.i32(keys - 1));
  std::string wgRow0 = w.add32(q0, w.mul32(g, w.i32(64)));
  std::string pastEnd = w.setp("ge", kLast, seqK, "s32");
  std::string rightEdge =
      w.add32(w.add32(wgRow0, offset), "%window_right");
  std::string pastRight = w.let(
      "ptx.and pred " + hasRight + ", " +
      w.setp("gt", kLast, rightEdge, "s32") + " : i1");
  std::string leftEdge = w.let(
      "ptx.sub s32 " + w.add32(w.add32(wgRow0, w.i32(63)), offset) +
      ", %window_left : i32");
  std::string beforeLeft = w.let(
      "ptx.and pred " + hasLeft + ", " + w.setp("lt", kLo, leftEdge, "s32") +
      " : i1");
  std::string needsMask = w.let(
      "ptx.or pred " +
      w.let("ptx.or pred " + pastEnd + ", " + pastRight + " : i1") + ", " +
      beforeLeft + " : i1");
  w.op("ptx.cond_bra " + needsMask + ", ^step_masked, ^step");
  std::string m[2] = {"%m0", "%m1"}, l[2] = {"%l0", "%l1"};
  for (bool masked : {true, false}) {
    const std::string tag = masked ? "_masked" : "";
    w.label("^step" + tag + ":");
    Stage curK = stageOf("%j", false);
    w.waitParity(curK.full, curK.parity, "k_wait" + tag, "k_ready" + tag);
    issueTurn();
    w.op("ptx.wgmma_fence");
    std::vector<std::string> scores = issueQK(curK.tile);
    w.waitParity(prevV.full, prevV.parity, "v_wait" + tag, "v_ready" + tag);
    // P and O cross the wait's loop into P V's wgmmas: fence them (ptxas
    // would insert the fence itself, C7519).
    w.op("ptx.wgmma_fence");
    std::vector<std::string> o =
        issuePV(argNames("o", oAccs), argNames("p", pRegs), prevV.tile);
    passTurn(false);
    w.op("ptx.wgmma_wait_group 1");
    releaseStage(curK);
    Softmax sm = softmax(scores, w.add32(jBegin, "%j"), m, l, masked);
    w.op("ptx.wgmma_wait_group 0");
    packP(sm);
    releaseStage(prevV);
    for (unsigned e = 0; e < oAccs; ++e)
      o[e] = w.let("ptx.mul rn f32 " + o[e] + ", " + sm.alpha[(e / 2) % 2] +
                   " : f32");
    w.op("ptx.bra " + loopArgs(w.add32("%j", one), sm, o));
  }

  // The last block's P V.
  w.label("^last:");
  w.waitParity(prevV.full, prevV.parity, "v_last_wait", "v_last_ready");
  issueTurn();
  w.op("ptx.wgmma_fence");
  std::vector<std::string> oLast =
      issuePV(argNames("o", oAccs), argNames("p", pRegs), prevV.tile);
  passTurn(true);
  w.op("ptx.wgmma_wait_group 0");
  releaseStage(prevV);
  w.op("ptx.bra ^finish(%m0, %m1, %l0, %l1, " + joined(oLast) +
       " : f32, f32, f32, f32, " + oTypes + ")");

  // O / l (0 where no key was visible), stored as 16-bit pairs.
  w.label("^finish(%fm0: f32, %fm1: f32, %fl0: f32, %fl1: f32, " +
          blockArgs("fo", oAccs, "f32") + "):");
  std::string inv[2], lse[2];
  std::string fl[2] = {"%fl0", "%fl1"}, fm[2] = {"%fm0", "%fm1"};
  std::string ln2 = w.f32("0.693147182");
  for (unsigned h = 0; h < 2; ++h) {
    std::string sum = fl[h];
    for (unsigned xorLane : {1u, 2u}) {
      std::string other = w.shflXor(sum, xorLane);
      sum = w.let("ptx.add rn f32 " + sum + ", " + other + " : f32");
    }
    std::string empty = w.let("ptx.setp eq f32 " + sum + ", " + fz + " : f32");
    std::string r = w.let("ptx.rcp rn f32 " + sum + " : f32");
    inv[h] = w.let("ptx.selp f32 " + fz + ", " + r + ", " + empty + " : f32");
    // Natural logsumexp: (m + log2 l) ln 2 (-inf when no key was seen:
    // m is -inf then).
    std::string log2l = w.let("ptx.lg2 approx f32 " + sum + " : f32");
    std::string full = w.let("ptx.add rn f32 " + fm[h] + ", " + log2l + " : f32");
    std::string natural = w.let("ptx.mul rn f32 " + full + ", " + ln2 + " : f32");
    lse[h] = w.let("ptx.selp f32 " + negInf + ", " + natural + ", " + empty +
                   " : f32");
  }
  // lse[(batch * heads + head) * lse_stride + start + row] (packed: batch
  // 0, lse_stride = total rows), by the quad's first lane.
  std::string wantLse = w.let("ptx.setp ne u64 %lse, " + w.i64(0) + " : i64");
  std::string quadLead = w.setp("eq", pairCol, zero);
  std::string heads = w.let("ptx.sreg nctaid.y : i32");
  std::string lseRow0 = w.add32(
      w.mul32(w.add32(w.mul32(tmaBatch, heads), head), "%lse_stride"), qStart);
  std::string oBatch =
      w.let("ptx.mul wide u32 " + tmaBatch + ", %o_batch : (i32, i32) -> i64");
  std::string oHead =
      w.let("ptx.mul wide u32 " + head + ", %o_head : (i32, i32) -> i64");
  std::string colOff =
      w.let("ptx.cvt u64 u32 " + pairCol + " : i32 -> i64");
  std::string base64 = w.add64(w.add64(oBatch, oHead), colOff);
  for (unsigned h = 0; h < 2; ++h) {
    std::string rowOk = w.setp("lt", rows[h], seqQ);
    std::string lseOk = w.let("ptx.and pred " + rowOk + ", " + quadLead + " : i1");
    lseOk = w.let("ptx.and pred " + lseOk + ", " + wantLse + " : i1");
    std::string lseIndex = w.add32(lseRow0, rows[h]);
    std::string lseAddr = w.add64(
        "%lse", w.let("ptx.mul wide u32 " + lseIndex + ", " + w.i32(4) +
                      " : (i32, i32) -> i64"));
    w.op("ptx.st if " + lseOk + " global f32 [" + lseAddr + "], " + lse[h] +
         " : i64, f32");
    std::string rowElems =
        w.let("ptx.mul wide u32 " + w.add32(qStart, rows[h]) +
              ", %o_seq : (i32, i32) -> i64");
    std::string elems = w.add64(base64, rowElems);
    std::string addr = w.add64(
        "%o", w.let("ptx.shl b64 " + elems + ", " + one + " : (i64, i32) -> i64"));
    storeAccumulatorRow(w, type, "fo", d, h, addr, rowOk, inv[h]);
  }
  w.op("ptx.bra ^done");
  w.label("^done:");
  w.op("ptx.ret");
  out += w.text;
  out += "  }\n";
  return out;
}

std::vector<HopperAttentionConfig> kaio::ops::kernels::getHopperAttentionConfigs() {
  std::vector<HopperAttentionConfig> configs;
  for (bool bf16 : {false, true})
    for (unsigned dim : {64u, 128u, 256u})
      for (unsigned consumers : {2u, 3u})
        for (bool pingPong : {false, true})
          if ((!pingPong || hopperAttentionPingPongBuilt(dim)) &&
              (consumers == 2 || hopperAttentionWideBuilt(dim)))
            configs.push_back(
                HopperAttentionConfig{bf16, dim, 2, pingPong, consumers});
  return configs;
}
