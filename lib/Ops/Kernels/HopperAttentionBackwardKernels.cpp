//===- HopperAttentionBackwardKernels.cpp - attention backward, sm_90a ----===//
//
// The attention backward's dK/dV and dQ kernels on sm_90a (TMA + wgmma,
// warp specialised). FlashAttention-3 computes dQ inside its dK/dV loop
// with f32 atomics; here dQ has a kernel of its own (S and dP computed
// twice: seven products where atomics need five), so that the backward
// stays bitwise deterministic, as the portable one
// (AttentionBackwardKernels.cpp) is. With P = exp(scale Q K^T - lse), dP =
// dO V^T and delta = rowsum(dO * O) (flash_bwd_prep):
//   dV = P^T dO,  dK = scale dS^T Q,  dQ = scale dS K,  dS = P * (dP - delta).
//
// dK/dV: a block of three warpgroups owns 128 keys of one (batch, kv head).
//  - Warpgroup 0 is the producer (setmaxnreg.dec). Thread 0 loads the K and
//    V tiles once and streams 64-row blocks of Q and dO by TMA (the
//    forward's 4-d tensor maps) into a ring of `stages` buffers guarded by
//    full/empty mbarriers: the query blocks that see any of the block's
//    keys, for each query head of the kv head in turn (GQA sums there, in
//    a fixed order). Warp 1 writes each step's lse (negated, log2 units)
//    and delta rows beside them and arrives on the full barrier too.
//  - Warpgroups 1 and 2 are consumers (setmaxnreg.inc), 64 keys each,
//    holding dK and dV in registers. A step issues S^T = K Q^T and dP^T =
//    V dO^T (both operands K-major from shared memory), reads its lse
//    while they run, then forms P^T = exp2(scale log2e S^T - lse log2e)
//    and dS^T = P^T (dP^T - delta) in registers, packed as the A operands
//    of dV += P^T dO and dK += dS^T Q (Q and dO N-major). lse and delta
//    are per column (query) there: two 8-byte shared loads a column pair.
//  - The epilogue scales dK and stores dK and dV as 16-bit pairs (zeros
//    for keys no query sees).
// dQ: a block of three warpgroups owns 128 query rows of one (batch,
// head), the forward's structure: the producer loads Q and dO once and
// streams 64-key blocks of K and V; each consumer (64 rows) issues S = Q
// K^T and dP = dO V^T, forms P (its rows' lse in registers) and dS, and
// issues dQ += dS K (K N-major); the epilogue scales dQ and stores it.
// Masks as in the forward (window, causal, bottom-right alignment, packed
// sequences); steps every element of which is visible skip the compares.
//
//===----------------------------------------------------------------------===//

#include "HopperAttentionSupport.h"
#include "OpsKernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kaio::ops::kernels;
using namespace kaio::ops::kernels::hopper_attention;

namespace {

/// The `ptx.entry` line of a backward kernel: the four tensor maps, each
/// output's pointer and strides, lse and delta, the rest as in the
/// forward.
std::string entryLine(const std::string &name, const char *type,
                      llvm::ArrayRef<const char *> outputs, unsigned smem) {
  std::string text = "  ptx.entry @" + name +
                     "(%mq: i64 {ptx.tensor_map, ptx.name = \"q_map\"}, "
                     "%mk: i64 {ptx.tensor_map, ptx.name = \"k_map\"}, "
                     "%mv: i64 {ptx.tensor_map, ptx.name = \"v_map\"}, "
                     "%mdo: i64 {ptx.tensor_map, ptx.name = \"do_map\"}, ";
  for (const char *t : outputs)
    text += llvm::formatv(
                "%{0}: i64 {{ptx.ptr = {1}, ptx.name = \"{0}\"}, "
                "%{0}_batch: i32 {{ptx.name = \"{0}_batch\"}, %{0}_seq: i32 "
                "{{ptx.name = \"{0}_seq\"}, %{0}_head: i32 {{ptx.name = "
                "\"{0}_head\"}, ",
                t, type)
                .str();
  // .minnctapersm 1: ptxas needs the register count at entry to honour
  // setmaxnreg (C7508 otherwise, and the consumers spill).
  return text +
         "%lse: i64 {ptx.ptr = f32, ptx.readonly, ptx.name = \"lse\"}, "
         "%delta: i64 {ptx.ptr = f32, ptx.readonly, ptx.name = \"delta\"}, "
         "%row_batch: i32 {ptx.name = \"row_batch\"}, "
         "%row_head: i32 {ptx.name = \"row_head\"}, "
         "%seq_q: i32 {ptx.name = \"seq_q\"}, %seq_k: i32 {ptx.name = "
         "\"seq_k\"}, %group: i32 {ptx.name = \"group\"}, "
         "%scale_log2: f32 {ptx.name = \"scale_log2\"}, "
         "%scale: f32 {ptx.name = \"scale\"}, "
         "%window_left: i32 {ptx.name = \"window_left\", ptx.signed}, "
         "%window_right: i32 {ptx.name = \"window_right\", ptx.signed}, "
         "%bottom_right: i32 {ptx.name = \"bottom_right\"}, "
         "%cu_q: i64 {ptx.ptr = i32, ptx.readonly, ptx.name = \"cu_q\"}, "
         "%cu_k: i64 {ptx.ptr = i32, ptx.readonly, ptx.name = \"cu_k\"}) "
         "attributes {reqntid = array<i32: 384>, minnctapersm = 1 : i32, "
         "dynamic_smem = " +
         std::to_string(smem) + " : i64} {\n";
}

std::string dkdvSource(const HopperAttentionBackwardConfig &c) {
  const unsigned d = c.headDim;
  constexpr unsigned keys = kHopperDkdvKeys, rowsQ = kHopperDkdvQueries;
  const unsigned qShift = llvm::Log2_32(rowsQ);
  const unsigned kvBytes = keys * d * 2, qBytes = rowsQ * d * 2;
  const unsigned stageBytes = 2 * qBytes;
  // A stage's lse (negated, log2 units) and delta rows, after the ring.
  constexpr unsigned kRowBytes = 2 * rowsQ * 4;
  const unsigned smem = hopperDkdvSharedBytes(c);
  const unsigned sAccs = rowsQ / 2, gradAccs = d / 2;
  const char *type = c.bf16 ? "bf16" : "f16";
  const std::string name = hopperDkdvName(c);
  PtxWriter w;
  std::string out;
  out += llvm::formatv("  ptx.var shared @{0}_tiles : b8 extern align 1024\n"
                       "  ptx.var shared @{0}_bars : b64 [{1}] align 8\n",
                       name, 1 + 2 * c.stages);
  out += entryLine(name, type, {"dk", "dv"}, smem);

  // Block coordinates and this batch's sequences.
  BlockSetup b = blockSetup(w);
  const std::string &tid = b.tid, &qStart = b.qStart, &seqQ = b.seqQ,
                    &kStart = b.kStart, &seqK = b.seqK,
                    &tmaBatch = b.tmaBatch;
  std::string kb0 =
      w.mul32(w.let("ptx.sreg ctaid.x : i32"), w.i32(keys));
  std::string kvHead = w.let("ptx.sreg ctaid.y : i32");
  std::string zero = w.i32(0), one = w.i32(1), two = w.i32(2);
  std::string idle = w.setp("ge", kb0, seqK);
  w.op("ptx.cond_bra " + idle + ", ^done, ^start");
  w.label("^start:");

  // Query i sees keys [i + offset - window_left, i + offset + window_right]
  // (negative: unbounded), offset = seq_k - seq_q when bottom-right
  // aligned. The query blocks [iBegin, iEnd) hold every query that sees a
  // key of this block: i >= kb0 - offset - window_right and i <= kb0 + 127
  // - offset + window_left.
  Window win = windowOf(w, seqQ, seqK);
  const std::string &offset = win.offset, &hasLeft = win.hasLeft,
                    &hasRight = win.hasRight;
  std::string allBlocks = w.shr(w.add32(seqQ, w.i32(rowsQ - 1)), qShift);
  std::string firstQuery = w.let(
      "ptx.sub s32 " + w.let("ptx.sub s32 " + kb0 + ", " + offset + " : i32") +
      ", %window_right : i32");
  // (The block's last key below seq_k: with a bounded left window, query
  // blocks that see only keys past it have nothing to add.)
  std::string lastKey =
      w.let("ptx.min s32 " + w.add32(kb0, w.i32(keys - 1)) + ", " +
            w.add32(seqK, w.i32(-1)) + " : i32");
  std::string lastQuery = w.add32(
      w.let("ptx.sub s32 " + lastKey + ", " + offset + " : i32"),
      "%window_left");
  BlockRange range = blockRange(w, firstQuery, hasRight, lastQuery, hasLeft,
                                allBlocks, qShift);
  const std::string &iBegin = range.begin, &perHead = range.count;
  // Steps: the query blocks of query head kvHead * group + 0, then + 1, ...
  std::string steps = w.mul32(perHead, "%group");
  // Step `it`'s query head and first query row.
  auto stepOf = [&](const std::string &it, std::string &head,
                    std::string &q0) {
    std::string h = w.let("ptx.div u32 " + it + ", " + perHead + " : i32");
    std::string block = w.add32(
        iBegin,
        w.let("ptx.sub s32 " + it + ", " + w.mul32(h, perHead) + " : i32"));
    head = w.add32(w.mul32(kvHead, "%group"), h);
    q0 = w.mul32(block, w.i32(rowsQ));
  };

  std::string tiles = w.let("ptx.addressof @" + name + "_tiles : i32");
  std::string bars = w.let("ptx.addressof @" + name + "_bars : i32");
  std::string first = w.setp("eq", tid, zero);
  // Barriers: K and V's, then per stage the Q/dO buffer's full (thread 0's
  // TMA bytes and warp 1's 32 lanes) and empty.
  RingBarriers rb = initOnceAndRing(w, bars, first, c.stages, 33);
  const std::string &kvBar = rb.once, &full0 = rb.full0, &empty0 = rb.empty0;
  std::string kTiles = tiles, vTiles = w.add32(tiles, w.i32(kvBytes));
  std::string ringTiles = w.add32(tiles, w.i32(2 * kvBytes));
  std::string rowTiles =
      w.add32(ringTiles, w.i32(c.stages * stageBytes));
  struct Stage : RingSlot {
    std::string q, dO, rows;
  };
  auto stageOf = [&](const std::string &it) {
    Stage s{ringSlot(w, it, c.stages, full0, empty0), "", "", ""};
    s.q = w.add32(ringTiles, w.mul32(s.index, w.i32(stageBytes)));
    s.dO = w.add32(s.q, w.i32(qBytes));
    s.rows = w.add32(rowTiles, w.mul32(s.index, w.i32(kRowBytes)));
    return s;
  };
  std::string anySteps = w.setp("ne", steps, zero);
  std::string isProducer = w.setp("eq", b.wg, zero);
  w.op("ptx.cond_bra " + isProducer + ", ^producer, ^consumer");

  // Producer: thread 0 loads K and V once, then Q and dO of each step
  // into the ring by TMA; warp 1 writes the step's lse (negated, log2
  // units: -inf past seq_q or where a row saw no key, so that P = 0) and
  // delta rows beside them. A stage is full once the TMA bytes have landed
  // and warp 1's 32 lanes have arrived.
  w.label("^producer:");
  w.op("ptx.setmaxnreg dec 40");
  std::string warp1 = w.setp("eq", w.shr(tid, 5), one);
  std::string loads =
      w.let("ptx.and pred " + first + ", " + anySteps + " : i1");
  std::string writesRows =
      w.let("ptx.and pred " + warp1 + ", " + anySteps + " : i1");
  w.op("ptx.cond_bra " + loads + ", ^load_kv, ^producer_rows");
  w.label("^producer_rows:");
  w.op("ptx.cond_bra " + writesRows + ", ^rows(" + zero + " : i32), ^done");
  w.label("^load_kv:");
  w.op("ptx.mbarrier_arrive expect_tx shared [" + kvBar + "], " +
       w.i32(2 * kvBytes) + " : i32");
  std::string keyRow = w.add32(kStart, kb0);
  loadTile(w, d, kTiles, "%mk", keyRow, kvHead, tmaBatch, keys, kvBar);
  loadTile(w, d, vTiles, "%mv", keyRow, kvHead, tmaBatch, keys, kvBar);
  w.op("ptx.bra ^produce(" + zero + " : i32)");
  auto freeStage = [&](const std::string &it, llvm::StringRef tag) {
    Stage ps = stageOf(it);
    waitSlotFree(w, ps, tag);
    return ps;
  };
  auto nextStep = [&](const std::string &it, llvm::StringRef loop) {
    std::string next = w.add32(it, one);
    std::string more = w.setp("lt", next, steps);
    w.op("ptx.cond_bra " + more + ", ^" + loop + "(" + next +
         " : i32), ^done");
  };
  w.label("^produce(%pi: i32):");
  {
    Stage ps = freeStage("%pi", "producer");
    w.op("ptx.mbarrier_arrive expect_tx shared [" + ps.full + "], " +
         w.i32(stageBytes) + " : i32");
    std::string head, q0;
    stepOf("%pi", head, q0);
    std::string row = w.add32(qStart, q0);
    loadTile(w, d, ps.q, "%mq", row, head, tmaBatch, rowsQ, ps.full);
    loadTile(w, d, ps.dO, "%mdo", row, head, tmaBatch, rowsQ, ps.full);
    nextStep("%pi", "produce");
  }
  w.label("^rows(%ri: i32):");
  {
    Stage ps = freeStage("%ri", "rows");
    std::string head, q0;
    stepOf("%ri", head, q0);
    std::string lane = w.let("ptx.and b32 " + tid + ", " + w.i32(31) +
                             " : i32");
    for (unsigned half = 0; half < rowsQ / 32; ++half) {
      std::string r = w.add32(lane, w.i32(32 * half));
      RowStats st = loadRowStats(w, b, head, w.add32(q0, r));
      std::string at = w.add32(ps.rows, w.mul32(r, w.i32(4)));
      w.op("ptx.st shared f32 [" + at + "], " + st.negLse + " : i32, f32");
      w.op("ptx.st shared f32 [" + at + " + " + std::to_string(rowsQ * 4) +
           "], " + st.delta + " : i32, f32");
    }
    w.op("ptx.mbarrier_arrive shared [" + ps.full + "] : i32");
    nextStep("%ri", "rows");
  }

  // Consumers: warpgroup 1 + g owns keys kb0 + 64 g ... + 63; a thread
  // holds key rows keyOf[h] (h = 0, 1) of its warp's 16 and the columns
  // 8 t + pairCol + u (u = 0, 1) of each product.
  w.label("^consumer:");
  w.op("ptx.setmaxnreg inc 232");
  ConsumerLanes cl = consumerLanes(w, b);
  const std::string &g = cl.g, &pairCol = cl.pairCol, &wgLeader = cl.leader;
  std::string wgKey0 = w.add32(kb0, w.mul32(g, w.i32(64)));
  std::string key0 =
      w.add32(wgKey0, w.add32(w.mul32(cl.warp, w.i32(16)), cl.quad));
  std::string keyOf[2] = {key0, w.add32(key0, w.i32(8))};
  std::string descHigh = w.i64(swizzle128DescriptorHigh());
  std::string descN = w.i64(swizzle128DescriptorHigh(rowsQ * 128));
  std::string kDesc = w.descriptor(w.add32(kTiles, w.mul32(g, w.i32(64 * 128))),
                                   descHigh, /*clustered=*/false);
  std::string vDesc = w.descriptor(w.add32(vTiles, w.mul32(g, w.i32(64 * 128))),
                                   descHigh, /*clustered=*/false);
  std::string fz = w.f32("0.000000e+00");
  const std::string gradTypes = repeatedTypes(2 * gradAccs, "f32");
  std::vector<std::string> gradZero(2 * gradAccs, fz);
  w.op("ptx.cond_bra " + anySteps + ", ^consume, ^finish(" + joined(gradZero) +
       " : " + gradTypes + ")");
  w.label("^consume:");
  w.waitParity(kvBar, zero, "kv_wait", "kv_ready");
  w.op("ptx.bra ^step(" + zero + ", " + joined(gradZero) + " : i32, " +
       gradTypes + ")");

  // A step: the query block of `it`, dK in %dk*, dV in %dv*.
  w.label("^step(%it: i32, " + blockArgs("dk", gradAccs, "f32") + ", " +
          blockArgs("dv", gradAccs, "f32") + "):");
  Stage cs = stageOf("%it");
  std::string head, q0;
  stepOf("%it", head, q0);
  // Element e of an accumulator is column 8 (e / 4) + pairCol + e % 2:
  // query qCol0 + 8 (e / 4) + e % 2.
  std::string qCol0 = w.add32(q0, pairCol);
  auto columnOffset = [](unsigned e) { return 8 * (e / 4) + e % 2; };
  // Every element visible: all of the step's queries below seq_q, every
  // key of the warpgroup at or left of its first query's right edge and
  // at or right of its last query's left edge.
  std::string qLast = w.add32(q0, w.i32(rowsQ - 1));
  std::string pastEnd = w.setp("ge", qLast, seqQ, "s32");
  std::string rightEdge = w.add32(w.add32(q0, offset), "%window_right");
  std::string pastRight = w.let(
      "ptx.and pred " + hasRight + ", " +
      w.setp("gt", w.add32(wgKey0, w.i32(63)), rightEdge, "s32") + " : i1");
  std::string leftEdge = w.let("ptx.sub s32 " + w.add32(qLast, offset) +
                               ", %window_left : i32");
  std::string beforeLeft = w.let("ptx.and pred " + hasLeft + ", " +
                                 w.setp("lt", wgKey0, leftEdge, "s32") +
                                 " : i1");
  std::string needsMask = w.let(
      "ptx.or pred " +
      w.let("ptx.or pred " + pastEnd + ", " + pastRight + " : i1") + ", " +
      beforeLeft + " : i1");
  std::string nextIt = w.add32("%it", one);
  w.waitParity(cs.full, cs.parity, "step_wait", "step_ready");
  w.op("ptx.cond_bra " + needsMask + ", ^products_masked, ^products");
  for (bool masked : {true, false}) {
    const std::string tag = masked ? "_masked" : "";
    w.label("^products" + tag + ":");
    w.op("ptx.wgmma_fence");
    std::vector<std::string> s = issueSharedProduct(
        w, type, rowsQ, d, kDesc, keys,
        w.descriptor(cs.q, descHigh, /*clustered=*/false), rowsQ);
    std::vector<std::string> dp = issueSharedProduct(
        w, type, rowsQ, d, vDesc, keys,
        w.descriptor(cs.dO, descHigh, /*clustered=*/false), rowsQ);
    // The step's lse (while the products run) and delta of this thread's
    // columns 8 t + pairCol and + 1, one 8-byte load each a t (delta's
    // after the products: loaded earlier, its 16 registers would spill at
    // head dim 128).
    std::string row = w.add32(cs.rows, w.mul32(pairCol, w.i32(4)));
    auto loadRow = [&](unsigned offset) {
      std::vector<std::string> values;
      for (unsigned t = 0; t < rowsQ / 8; ++t) {
        std::string pair = w.letMany(
            2, "ptx.ld shared f32 [" + row + " + " +
                   std::to_string(4 * (8 * t + offset)) +
                   "] : i32 -> f32, f32");
        for (unsigned u = 0; u < 2; ++u)
          values.push_back(pair + "#" + std::to_string(u));
      }
      return values;
    };
    std::vector<std::string> negLses = loadRow(0);
    // Key in [q + offset - window_left, q + offset + window_right]: q in
    // [key - offset - window_right, key - offset + window_left]. Keys past
    // seq_k (zeros, or packed, the next sequence's) are not masked: their
    // rows of dK and dV are never stored, and nothing else reads them.
    std::string qLo[2], qHi[2];
    if (masked)
      for (unsigned h = 0; h < 2; ++h) {
        std::string diagonal =
            w.let("ptx.sub s32 " + keyOf[h] + ", " + offset + " : i32");
        qLo[h] = w.let(
            "ptx.selp b32 " +
            w.let("ptx.sub s32 " + diagonal + ", %window_right : i32") + ", " +
            zero + ", " + hasRight + " : i32");
        qHi[h] = w.let("ptx.selp b32 " + w.add32(diagonal, "%window_left") +
                       ", " + w.i32(INT32_MAX) + ", " + hasLeft + " : i32");
      }
    w.op("ptx.wgmma_wait_group 0");
    std::vector<std::string> deltas = loadRow(rowsQ);
    // P^T = 2^(s scale_log2 - lse log2e) (0 where the key is hidden from
    // the query) and dS^T = P^T (dP^T - delta), both packed as A operands
    // as they are made (S and dP die as they go).
    std::vector<std::string> p(sAccs), ds(sAccs);
    // Element e is column 8 (e / 4) + pairCol + e % 2: slot 2 (e / 4) + e %
    // 2 of those.
    auto slotOf = [](unsigned e) { return 2 * (e / 4) + e % 2; };
    for (unsigned e = 0; e < sAccs; ++e) {
      std::string negLse = negLses[slotOf(e)], delta = deltas[slotOf(e)];
      p[e] = w.let("ptx.ex2 approx ftz f32 " +
                   w.let("ptx.fma rn f32 " + s[e] + ", %scale_log2, " +
                         negLse + " : f32") +
                   " : f32");
      if (masked) {
        unsigned h = (e / 2) % 2;
        std::string query = w.add32(qCol0, w.i32(columnOffset(e)));
        std::string visible = w.let(
            "ptx.and pred " + w.setp("ge", query, qLo[h], "s32") + ", " +
            w.setp("le", query, qHi[h], "s32") + " : i1");
        p[e] = w.let("ptx.selp f32 " + p[e] + ", " + fz + ", " + visible +
                     " : f32");
      }
      ds[e] = w.let("ptx.mul rn f32 " + p[e] + ", " +
                    w.let("ptx.sub rn f32 " + dp[e] + ", " + delta +
                          " : f32") +
                    " : f32");
    }
    std::vector<std::string> pA = accumulatorAsA(w, type, p);
    std::vector<std::string> dsA = accumulatorAsA(w, type, ds);
    // dV += P^T dO and dK += dS^T Q (dO and Q N-major).
    w.op("ptx.wgmma_fence");
    std::vector<std::string> dv = issueRegisterProduct(
        w, type, d, argNames("dv", gradAccs), pA,
        w.descriptor(cs.dO, descN, /*clustered=*/false));
    std::vector<std::string> dk = issueRegisterProduct(
        w, type, d, argNames("dk", gradAccs), dsA,
        w.descriptor(cs.q, descN, /*clustered=*/false));
    w.op("ptx.wgmma_wait_group 0");
    w.op("ptx.mbarrier_arrive if " + wgLeader + " shared [" + cs.empty +
         "] : i32");
    std::string more = w.setp("lt", nextIt, steps);
    w.op("ptx.cond_bra " + more + ", ^step(" + nextIt + ", " + joined(dk) +
         ", " + joined(dv) + " : i32, " + gradTypes + "), ^finish(" +
         joined(dk) + ", " + joined(dv) + " : " + gradTypes + ")");
  }

  // dK (scaled) and dV as 16-bit pairs, rows below seq_k.
  w.label("^finish(" + blockArgs("fk", gradAccs, "f32") + ", " +
          blockArgs("fv", gradAccs, "f32") + "):");
  std::string colOff = w.let("ptx.cvt u64 u32 " + pairCol + " : i32 -> i64");
  for (bool isV : {false, true}) {
    const std::string t = isV ? "%dv" : "%dk";
    std::string base = w.add64(
        w.add64(w.let("ptx.mul wide u32 " + tmaBatch + ", " + t +
                      "_batch : (i32, i32) -> i64"),
                w.let("ptx.mul wide u32 " + kvHead + ", " + t +
                      "_head : (i32, i32) -> i64")),
        colOff);
    for (unsigned h = 0; h < 2; ++h) {
      std::string rowOk = w.setp("lt", keyOf[h], seqK);
      std::string elems = w.add64(
          base, w.let("ptx.mul wide u32 " + w.add32(kStart, keyOf[h]) + ", " +
                      t + "_seq : (i32, i32) -> i64"));
      std::string addr = w.add64(
          t, w.let("ptx.shl b64 " + elems + ", " + one +
                   " : (i64, i32) -> i64"));
      storeAccumulatorRow(w, type, isV ? "fv" : "fk", d, h, addr, rowOk,
                          isV ? "" : "%scale");
    }
  }
  w.op("ptx.bra ^done");
  w.label("^done:");
  w.op("ptx.ret");
  out += w.text;
  out += "  }\n";
  return out;
}

/// dQ for 128 query rows of one (batch, head), the forward's structure
/// (see the file comment).
std::string dqSource(const HopperAttentionBackwardConfig &c) {
  const unsigned d = c.headDim;
  constexpr unsigned rowsQ = kHopperDqQueries, keys = kHopperDqKeys;
  const unsigned keyShift = llvm::Log2_32(keys);
  const unsigned qBytes = rowsQ * d * 2, kvBytes = keys * d * 2;
  const unsigned stageBytes = 2 * kvBytes;
  const unsigned smem = hopperDqSharedBytes(c);
  const unsigned sAccs = keys / 2, gradAccs = d / 2;
  const char *type = c.bf16 ? "bf16" : "f16";
  const std::string name = hopperDqName(c);
  PtxWriter w;
  std::string out;
  out += llvm::formatv("  ptx.var shared @{0}_tiles : b8 extern align 1024\n"
                       "  ptx.var shared @{0}_bars : b64 [{1}] align 8\n",
                       name, 1 + 2 * c.stages);
  out += entryLine(name, type, {"dq"}, smem);

  // Block coordinates (query blocks in reverse launch order, as the
  // forward's).
  BlockSetup b = blockSetup(w);
  const std::string &tid = b.tid, &qStart = b.qStart, &seqQ = b.seqQ,
                    &kStart = b.kStart, &seqK = b.seqK,
                    &tmaBatch = b.tmaBatch;
  std::string head = w.let("ptx.sreg ctaid.y : i32");
  std::string kvHead = w.let("ptx.div u32 " + head + ", %group : i32");
  std::string q0 = w.mul32(reversedBlockX(w), w.i32(rowsQ));
  std::string zero = w.i32(0), one = w.i32(1);
  std::string idle = w.setp("ge", q0, seqQ);
  w.op("ptx.cond_bra " + idle + ", ^done, ^start");
  w.label("^start:");
  // Key blocks [jBegin, jBegin + numBlocks) hold every key a row of this
  // block sees.
  Window win = windowOf(w, seqQ, seqK);
  const std::string &offset = win.offset, &hasLeft = win.hasLeft,
                    &hasRight = win.hasRight;
  BlockRange range = keyBlocksOf(w, win, q0, rowsQ, seqK, keyShift);
  const std::string &jBegin = range.begin, &numBlocks = range.count;
  std::string anyBlocks = w.setp("ne", numBlocks, zero);

  std::string tiles = w.let("ptx.addressof @" + name + "_tiles : i32");
  std::string bars = w.let("ptx.addressof @" + name + "_bars : i32");
  std::string first = w.setp("eq", tid, zero);
  // Barriers: Q and dO's, then per stage the K/V buffer's full and empty.
  RingBarriers rb = initOnceAndRing(w, bars, first, c.stages, 1);
  const std::string &qBar = rb.once, &full0 = rb.full0, &empty0 = rb.empty0;
  std::string qTiles = tiles, doTiles = w.add32(tiles, w.i32(qBytes));
  std::string ringTiles = w.add32(tiles, w.i32(2 * qBytes));
  struct Stage : RingSlot {
    std::string k, v;
  };
  auto stageOf = [&](const std::string &it) {
    Stage s{ringSlot(w, it, c.stages, full0, empty0), "", ""};
    s.k = w.add32(ringTiles, w.mul32(s.index, w.i32(stageBytes)));
    s.v = w.add32(s.k, w.i32(kvBytes));
    return s;
  };
  std::string isProducer = w.setp("eq", b.wg, zero);
  w.op("ptx.cond_bra " + isProducer + ", ^producer, ^consumer");

  // Producer: Q and dO once, then K and V of each key block.
  w.label("^producer:");
  w.op("ptx.setmaxnreg dec 40");
  std::string loads =
      w.let("ptx.and pred " + first + ", " + anyBlocks + " : i1");
  w.op("ptx.cond_bra " + loads + ", ^load_q, ^done");
  w.label("^load_q:");
  w.op("ptx.mbarrier_arrive expect_tx shared [" + qBar + "], " +
       w.i32(2 * qBytes) + " : i32");
  std::string qRow = w.add32(qStart, q0);
  loadTile(w, d, qTiles, "%mq", qRow, head, tmaBatch, rowsQ, qBar);
  loadTile(w, d, doTiles, "%mdo", qRow, head, tmaBatch, rowsQ, qBar);
  w.op("ptx.bra ^produce(" + zero + " : i32)");
  w.label("^produce(%pj: i32):");
  {
    Stage ps = stageOf("%pj");
    waitSlotFree(w, ps, "producer");
    w.op("ptx.mbarrier_arrive expect_tx shared [" + ps.full + "], " +
         w.i32(stageBytes) + " : i32");
    std::string k0 =
        w.add32(kStart, w.mul32(w.add32(jBegin, "%pj"), w.i32(keys)));
    loadTile(w, d, ps.k, "%mk", k0, kvHead, tmaBatch, keys, ps.full);
    loadTile(w, d, ps.v, "%mv", k0, kvHead, tmaBatch, keys, ps.full);
    std::string next = w.add32("%pj", one);
    std::string more = w.setp("lt", next, numBlocks);
    w.op("ptx.cond_bra " + more + ", ^produce(" + next + " : i32), ^done");
  }

  // Consumers: warpgroup 1 + g owns query rows q0 + 64 g ... + 63; a thread
  // holds rows rows[h] (h = 0, 1) of its warp's 16.
  w.label("^consumer:");
  w.op("ptx.setmaxnreg inc 232");
  ConsumerLanes cl = consumerLanes(w, b);
  const std::string &g = cl.g, &pairCol = cl.pairCol, &wgLeader = cl.leader;
  std::string wgRow0 = w.add32(q0, w.mul32(g, w.i32(64)));
  std::string row0 =
      w.add32(wgRow0, w.add32(w.mul32(cl.warp, w.i32(16)), cl.quad));
  std::string rows[2] = {row0, w.add32(row0, w.i32(8))};
  std::string descHigh = w.i64(swizzle128DescriptorHigh());
  std::string descN = w.i64(swizzle128DescriptorHigh(keys * 128));
  std::string wgOffset = w.mul32(g, w.i32(64 * 128));
  std::string qDesc = w.descriptor(w.add32(qTiles, wgOffset), descHigh,
                                   /*clustered=*/false);
  std::string doDesc = w.descriptor(w.add32(doTiles, wgOffset), descHigh,
                                    /*clustered=*/false);
  std::string fz = w.f32("0.000000e+00");
  // Each row's lse (negated, log2 units) and delta, and the keys it sees.
  RowStats stats[2] = {loadRowStats(w, b, head, rows[0]),
                       loadRowStats(w, b, head, rows[1])};
  KeySpan span[2] = {visibleKeys(w, win, rows[0], seqK),
                     visibleKeys(w, win, rows[1], seqK)};
  const std::string gradTypes = repeatedTypes(gradAccs, "f32");
  std::vector<std::string> gradZero(gradAccs, fz);
  w.op("ptx.cond_bra " + anyBlocks + ", ^consume, ^finish(" +
       joined(gradZero) + " : " + gradTypes + ")");
  w.label("^consume:");
  w.waitParity(qBar, zero, "q_wait", "q_ready");
  w.op("ptx.bra ^step(" + zero + ", " + joined(gradZero) + " : i32, " +
       gradTypes + ")");

  // A step: key block jBegin + j, dQ in %dq*.
  w.label("^step(%j: i32, " + blockArgs("dq", gradAccs, "f32") + "):");
  Stage cs = stageOf("%j");
  std::string kLo = w.mul32(w.add32(jBegin, "%j"), w.i32(keys));
  // Every element visible: the block's keys below seq_k, at or left of the
  // warpgroup's first row's right edge and at or right of its last row's
  // left edge.
  std::string kLast = w.add32(kLo, w.i32(keys - 1));
  std::string pastEnd = w.setp("ge", kLast, seqK, "s32");
  std::string pastRight = w.let(
      "ptx.and pred " + hasRight + ", " +
      w.setp("gt", kLast, w.add32(w.add32(wgRow0, offset), "%window_right"),
             "s32") +
      " : i1");
  std::string leftEdge = w.let(
      "ptx.sub s32 " + w.add32(w.add32(wgRow0, w.i32(63)), offset) +
      ", %window_left : i32");
  std::string beforeLeft = w.let("ptx.and pred " + hasLeft + ", " +
                                 w.setp("lt", kLo, leftEdge, "s32") + " : i1");
  std::string needsMask = w.let(
      "ptx.or pred " +
      w.let("ptx.or pred " + pastEnd + ", " + pastRight + " : i1") + ", " +
      beforeLeft + " : i1");
  std::string nextJ = w.add32("%j", one);
  std::string kCol0 = w.add32(kLo, pairCol);
  w.waitParity(cs.full, cs.parity, "step_wait", "step_ready");
  w.op("ptx.cond_bra " + needsMask + ", ^products_masked, ^products");
  for (bool masked : {true, false}) {
    const std::string tag = masked ? "_masked" : "";
    w.label("^products" + tag + ":");
    w.op("ptx.wgmma_fence");
    std::vector<std::string> s = issueSharedProduct(
        w, type, keys, d, qDesc, rowsQ,
        w.descriptor(cs.k, descHigh, /*clustered=*/false), keys);
    std::vector<std::string> dp = issueSharedProduct(
        w, type, keys, d, doDesc, rowsQ,
        w.descriptor(cs.v, descHigh, /*clustered=*/false), keys);
    w.op("ptx.wgmma_wait_group 0");
    // P = 2^(s scale_log2 - lse log2e) (0 for keys the row does not see)
    // and dS = P (dP - delta), packed as the A operand of dS K.
    std::vector<std::string> ds(sAccs);
    for (unsigned e = 0; e < sAccs; ++e) {
      unsigned h = (e / 2) % 2;
      std::string p = w.let("ptx.ex2 approx ftz f32 " +
                            w.let("ptx.fma rn f32 " + s[e] +
                                  ", %scale_log2, " + stats[h].negLse +
                                  " : f32") +
                            " : f32");
      if (masked) {
        std::string key = w.add32(kCol0, w.i32(8 * (e / 4) + e % 2));
        std::string visible = w.let(
            "ptx.and pred " + w.setp("lt", key, span[h].hi, "s32") + ", " +
            w.setp("ge", key, span[h].lo, "s32") + " : i1");
        p = w.let("ptx.selp f32 " + p + ", " + fz + ", " + visible +
                  " : f32");
      }
      ds[e] = w.let("ptx.mul rn f32 " + p + ", " +
                    w.let("ptx.sub rn f32 " + dp[e] + ", " +
                          stats[h].delta + " : f32") +
                    " : f32");
    }
    std::vector<std::string> dsA = accumulatorAsA(w, type, ds);
    // dQ += dS K (K N-major).
    w.op("ptx.wgmma_fence");
    std::vector<std::string> dq = issueRegisterProduct(
        w, type, d, argNames("dq", gradAccs), dsA,
        w.descriptor(cs.k, descN, /*clustered=*/false));
    w.op("ptx.wgmma_wait_group 0");
    w.op("ptx.mbarrier_arrive if " + wgLeader + " shared [" + cs.empty +
         "] : i32");
    std::string more = w.setp("lt", nextJ, numBlocks);
    w.op("ptx.cond_bra " + more + ", ^step(" + nextJ + ", " + joined(dq) +
         " : i32, " + gradTypes + "), ^finish(" + joined(dq) + " : " +
         gradTypes + ")");
  }

  // dQ (scaled) as 16-bit pairs, rows below seq_q.
  w.label("^finish(" + blockArgs("fq", gradAccs, "f32") + "):");
  std::string base = w.add64(
      w.add64(w.let("ptx.mul wide u32 " + tmaBatch +
                    ", %dq_batch : (i32, i32) -> i64"),
              w.let("ptx.mul wide u32 " + head +
                    ", %dq_head : (i32, i32) -> i64")),
      w.let("ptx.cvt u64 u32 " + pairCol + " : i32 -> i64"));
  for (unsigned h = 0; h < 2; ++h) {
    std::string rowOk = w.setp("lt", rows[h], seqQ);
    std::string elems = w.add64(
        base, w.let("ptx.mul wide u32 " + w.add32(qStart, rows[h]) +
                    ", %dq_seq : (i32, i32) -> i64"));
    std::string addr = w.add64(
        "%dq",
        w.let("ptx.shl b64 " + elems + ", " + one + " : (i64, i32) -> i64"));
    storeAccumulatorRow(w, type, "fq", d, h, addr, rowOk, "%scale");
  }
  w.op("ptx.bra ^done");
  w.label("^done:");
  w.op("ptx.ret");
  out += w.text;
  out += "  }\n";
  return out;
}

} // namespace

std::string kaio::ops::kernels::hopperAttentionBackwardSource(
    const HopperAttentionBackwardConfig &c) {
  return dkdvSource(c) + dqSource(c);
}

std::vector<HopperAttentionBackwardConfig>
kaio::ops::kernels::getHopperAttentionBackwardConfigs() {
  std::vector<HopperAttentionBackwardConfig> configs;
  for (bool bf16 : {false, true})
    for (unsigned dim : {64u, 128u})
      configs.push_back(HopperAttentionBackwardConfig{bf16, dim, 2});
  return configs;
}
