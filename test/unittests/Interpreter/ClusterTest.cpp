//===- ClusterTest.cpp - thread block clusters in the interpreter --------===//
//
// The blocks of a cluster run side by side: the cluster registers, mapa and
// `.shared::cluster` loads, stores and atomics on another CTA's shared
// memory, the cluster barrier, remote mbarrier arrivals and multicast TMA
// copies, against what each CTA must see; and the planted bugs a cluster
// kernel can have (reading a neighbour before the barrier, exiting while a
// neighbour still reads you, multicast before the neighbour's mbarrier
// exists, a cluster barrier some threads never reach) are reported.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "Kaio/Dialect/PTX/IR/Swizzle.h"

using namespace kaio;
using namespace kaio::interp;
using namespace kaio::interp::test;

namespace {

class ClusterTest : public InterpreterTest {
protected:
  static LaunchOptions clustered(Dim3 cluster) {
    LaunchOptions o;
    o.cluster = cluster;
    return o;
  }
  /// Runs kMulticast's kernel (loaded in `in`) as one cluster of two blocks
  /// on a 40 x 96 f16 matrix of zeros.
  LaunchResult launchMulticast(Interpreter &in) {
    uint64_t map = makeTensorMap2D(in, in.allocGlobal(40 * 96 * 2), 40, 96, 16,
                                   64, rt::TensorMapSwizzle::B128);
    return in.launch("multicast", {2}, {128}, {map, in.allocGlobal(4096)},
                     clustered({2}));
  }
  /// Runs kExchange's kernel `body` as one cluster of two blocks of 32.
  LaunchResult runPair(const std::string &body) {
    Interpreter &in = load(body);
    return in.launch("exchange", {2}, {32},
                     {in.allocGlobal(256), in.allocGlobal(4)},
                     clustered({2}));
  }
};

TEST_F(ClusterTest, ClusterRegistersNameEachBlocksPlace) {
  Interpreter &in = load(R"(
ptx.entry @regs(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %zero = ptx.constant 0 : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.cond_bra %first, ^write, ^done
^write:
  %bx = ptx.sreg ctaid.x : i32
  %by = ptx.sreg ctaid.y : i32
  %nx = ptx.sreg nctaid.x : i32
  %row = ptx.mul lo s32 %by, %nx : i32
  %block = ptx.add s32 %row, %bx : i32
  %c32 = ptx.constant 32 : i32
  %off = ptx.mul wide u32 %block, %c32 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %off : i64
  %cx = ptx.sreg clusterid.x : i32
  %cy = ptx.sreg clusterid.y : i32
  %ncx = ptx.sreg nclusterid.x : i32
  %ncy = ptx.sreg nclusterid.y : i32
  %ix = ptx.sreg cluster_ctaid.x : i32
  %iy = ptx.sreg cluster_ctaid.y : i32
  %rank = ptx.sreg cluster_ctarank : i32
  %n = ptx.sreg cluster_nctarank : i32
  ptx.st global b32 [%p], %cx, %cy, %ncx, %ncy : i64, i32, i32, i32, i32
  ptx.st global b32 [%p + 16], %ix, %iy, %rank, %n : i64, i32, i32, i32, i32
  ptx.ret
^done:
  ptx.ret
})");
  const Dim3 grid(4, 6), cluster(2, 3);
  uint64_t out = in.allocGlobal(grid.count() * 32);
  LaunchResult r = in.launch("regs", grid, {64}, {out}, clustered(cluster));
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(grid.count() * 8);
  in.read(out, got);
  for (uint32_t y = 0; y < grid.y; ++y)
    for (uint32_t x = 0; x < grid.x; ++x) {
      const uint32_t *g = got.data() + (y * grid.x + x) * 8;
      std::vector<uint32_t> want = {x / 2, y / 3, 2, 2,
                                    x % 2, y % 3, x % 2 + 2 * (y % 3), 6};
      EXPECT_EQ(std::vector<uint32_t>(g, g + 8), want)
          << "block (" << x << "," << y << ")";
    }
}

// As on the GPU, a shared variable's address in a cluster's CTA of rank
// r > 0 has bits above the block's shared size set (an H100 showed it: a
// wgmma descriptor that does not mask its 14-bit address field reads the
// wrong shared memory there); loads and stores through it, .shared and
// generic, reach the CTA's own memory.
TEST_F(ClusterTest, OwnSharedAddressesOfHigherRanksCarryHighBits) {
  Interpreter &in = load(R"(
ptx.var shared @word : b32 [32] align 4
ptx.entry @addr(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %bx = ptx.sreg ctaid.x : i32
  %w = ptx.addressof @word : i32
  %c4 = ptx.constant 4 : i32
  %woff = ptx.mul lo s32 %tid, %c4 : i32
  %mine = ptx.add s32 %w, %woff : i32
  %c100 = ptx.constant 100 : i32
  %stamp = ptx.add s32 %bx, %c100 : i32
  ptx.st shared b32 [%mine], %stamp : i32, i32
  %m64 = ptx.cvt u64 u32 %mine : i32 -> i64
  %gen = ptx.cvta shared %m64 : i64 -> i64
  %back = ptx.ld generic b32 [%gen] : i64 -> i32
  %nt = ptx.sreg ntid.x : i32
  %g = ptx.mad lo s32 %bx, %nt, %tid : i32
  %c8 = ptx.constant 8 : i32
  %off = ptx.mul wide u32 %g, %c8 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %off : i64
  ptx.st global b32 [%p], %w, %back : i64, i32, i32
  ptx.ret
})");
  uint64_t out = in.allocGlobal(4 * 32 * 8);
  LaunchResult r = in.launch("addr", {4}, {32}, {out}, clustered({2}));
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(4 * 32 * 2);
  in.read(out, got);
  for (uint32_t b = 0; b < 4; ++b) {
    const uint32_t *g = got.data() + b * 64;
    EXPECT_EQ(g[0] % (1u << 24), got[0]) << "block " << b;
    EXPECT_EQ(g[0] >= (1u << 24), b % 2 > 0) << "block " << b;
    for (uint32_t t = 0; t < 32; ++t)
      EXPECT_EQ(g[2 * t + 1], 100 + b) << "block " << b << " thread " << t;
  }
}

// Every thread writes a word stamped with its block into its own shared
// memory; after the cluster barrier it reads the word of the same thread in
// the next CTA of the cluster (rank + 1 mod size, through mapa) and adds one
// to a counter in rank 0's shared memory (atom.shared::cluster). After a
// second barrier, rank 0 writes the count. BARRIER1 and BARRIER2 are the
// barriers.
const char *kExchange = R"(
ptx.var shared @word : b32 [128] align 4
ptx.var shared @count : b32 [1] align 4
ptx.entry @exchange(%out: i64, %counts: i64) {
  %tid = ptx.sreg tid.x : i32
  %bx = ptx.sreg ctaid.x : i32
  %rank = ptx.sreg cluster_ctarank : i32
  %size = ptx.sreg cluster_nctarank : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %c4 = ptx.constant 4 : i32
  %c1000 = ptx.constant 1000 : i32
  %w = ptx.addressof @word : i32
  %cnt = ptx.addressof @count : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.st if %first shared b32 [%cnt], %zero : i32, i32
  %stamp = ptx.mad lo s32 %bx, %c1000, %tid : i32
  %woff = ptx.mul lo s32 %tid, %c4 : i32
  %mine = ptx.add s32 %w, %woff : i32
  ptx.st shared b32 [%mine], %stamp : i32, i32
  BARRIER1
  %r1 = ptx.add s32 %rank, %one : i32
  %next = ptx.rem u32 %r1, %size : i32
  %theirs = ptx.mapa shared_cluster %mine, %next : i32
  %v = ptx.ld shared_cluster b32 [%theirs] : i32 -> i32
  %root = ptx.mapa shared_cluster %cnt, %zero : i32
  ptx.red shared_cluster add u32 [%root], %one : i32, i32
  %nt = ptx.sreg ntid.x : i32
  %base = ptx.mul lo s32 %bx, %nt : i32
  %g = ptx.add s32 %base, %tid : i32
  %goff = ptx.mul wide u32 %g, %c4 : (i32, i32) -> i64
  %o = ptx.add s64 %out, %goff : i64
  ptx.st global b32 [%o], %v : i64, i32
  BARRIER2
  %root0 = ptx.setp eq u32 %rank, %zero : i32
  %write = ptx.and pred %first, %root0 : i1
  ptx.cond_bra %write, ^count, ^done
^count:
  %c = ptx.ld shared b32 [%cnt] : i32 -> i32
  %nc = ptx.sreg nctaid.x : i32
  %cl = ptx.div u32 %bx, %size : i32
  %coff = ptx.mul wide u32 %cl, %c4 : (i32, i32) -> i64
  %co = ptx.add s64 %counts, %coff : i64
  ptx.st global b32 [%co], %c : i64, i32
  ptx.ret
^done:
  ptx.ret
})";

const char *kClusterSync =
    "ptx.barrier_cluster_arrive release aligned\n"
    "  ptx.barrier_cluster_wait acquire aligned";

std::string exchange(llvm::StringRef barrier1, llvm::StringRef barrier2) {
  return replace(replace(kExchange, "BARRIER1", barrier1), "BARRIER2",
                 barrier2);
}

TEST_F(ClusterTest, BlocksReadAndCountInEachOthersSharedMemory) {
  Interpreter &in = load(exchange(kClusterSync, kClusterSync));
  const uint32_t blocks = 8, threads = 96;
  for (uint32_t size : {1u, 2u, 4u}) {
    uint64_t out = in.allocGlobal(blocks * threads * 4);
    uint64_t counts = in.allocGlobal(blocks / size * 4);
    LaunchResult r = in.launch("exchange", {blocks}, {threads}, {out, counts},
                               clustered({size}));
    ASSERT_TRUE(r.success) << "cluster of " << size << ": " << r.message();
    std::vector<uint32_t> got(blocks * threads), n(blocks / size);
    in.read(out, got);
    in.read(counts, n);
    for (uint32_t b = 0; b < blocks; ++b)
      for (uint32_t t = 0; t < threads; ++t) {
        uint32_t next = b / size * size + (b % size + 1) % size;
        ASSERT_EQ(got[b * threads + t], next * 1000 + t)
            << "cluster of " << size << ", block " << b << ", thread " << t;
      }
    for (uint32_t c = 0; c < blocks / size; ++c)
      EXPECT_EQ(n[c], size * threads) << "cluster " << c;
  }
}

TEST_F(ClusterTest, ReadingANeighbourBeforeTheClusterBarrierIsReported) {
  // Without the first barrier rank 0 reads rank 1's words before rank 1
  // has run at all.
  std::string body = exchange("", kClusterSync);
  LaunchResult r = runPair(body);
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "read of uninitialised shared memory");
  EXPECT_HAS(r, where(body, "ptx.ld shared_cluster"));
  EXPECT_HAS(r, "block (0,0,0), thread (0,0,0), accessing the shared memory "
                "of block (1,0,0)");
}

TEST_F(ClusterTest, ExitingWhileANeighbourStillReadsIsReported) {
  // Without the second barrier rank 1 finishes and exits; rank 0, released
  // from the first barrier afterwards, reads its shared memory.
  std::string body = exchange(kClusterSync, "");
  LaunchResult r = runPair(body);
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "the cluster's CTA rank 1 has exited (its shared memory is "
                "gone; a cluster barrier before exiting keeps it alive)");
}

TEST_F(ClusterTest, SharedWritesOfTwoBlocksWithoutABarrierRace) {
  // Both CTAs write rank 0's counter word with plain stores in the same
  // barrier interval.
  std::string body = exchange(kClusterSync, kClusterSync);
  body = replace(body, "ptx.red shared_cluster add u32 [%root], %one",
                 "ptx.st shared_cluster b32 [%root], %one");
  LaunchResult r = runPair(body);
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "shared-memory race: store of shared address 0x200 "
                "overwrites a value written by thread (0,0,0)");
}

TEST_F(ClusterTest, TheClusterBarrierOrdersGlobalMemoryBetweenItsBlocks) {
  // Rank 0 writes a word, rank 1 reads it: ordered by a cluster barrier,
  // a race without one (and between blocks of different clusters).
  const char *kHandOff = R"(
ptx.entry @handoff(%buf: i64, %out: i64) {
  %rank = ptx.sreg cluster_ctarank : i32
  %zero = ptx.constant 0 : i32
  %seven = ptx.constant 7 : i32
  %root = ptx.setp eq u32 %rank, %zero : i32
  ptx.st if %root global b32 [%buf], %seven : i64, i32
  SYNC
  %not = ptx.not pred %root : i1
  %v = ptx.ld if %not global b32 [%buf] : i64 -> i32
  ptx.st if %not global b32 [%out], %v : i64, i32
  ptx.ret
})";
  std::string body = replace(kHandOff, "SYNC", kClusterSync);
  Interpreter &in = load(body);
  uint64_t buf = in.allocGlobal(4), out = in.allocGlobal(4);
  LaunchResult r = in.launch("handoff", {2}, {1}, {buf, out}, clustered({2}));
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(1);
  in.read(out, got);
  EXPECT_EQ(got[0], 7u);

  std::string unsynced = replace(kHandOff, "SYNC", "");
  Interpreter &in2 = load(unsynced);
  r = in2.launch("handoff", {2}, {1},
                 {in2.allocGlobal(4), in2.allocGlobal(4)}, clustered({2}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "global-memory race: load of address");
  // Clusters of one: the barrier orders nothing between blocks.
  Interpreter &in3 = load(body);
  r = in3.launch("handoff", {2}, {1},
                 {in3.allocGlobal(4), in3.allocGlobal(4)}, clustered({1}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "global-memory race");
}

TEST_F(ClusterTest, AClusterBarrierSomeThreadsNeverReachIsADeadlock) {
  // Rank 1's threads wait somewhere else instead of the cluster barrier:
  // at a named barrier for more threads than the block has, or on an
  // mbarrier nobody arrives on (reported first: the likely cause).
  const char *kStuck = R"(
ptx.var shared @bar : b64 [1] align 8
ptx.entry @stuck() {
  %rank = ptx.sreg cluster_ctarank : i32
  %tid = ptx.sreg tid.x : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %b = ptx.addressof @bar : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.mbarrier_init if %first [%b], %one : i32
  ptx.bar_sync 0
  %root = ptx.setp eq u32 %rank, %zero : i32
  ptx.cond_bra %root, ^sync, ^wait
^sync:
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  ptx.ret
^wait:
  WAIT
^out:
  ptx.ret
})";
  // Half of rank 1's threads wait for 64 at a named barrier, the rest exit.
  std::string body = replace(kStuck, "WAIT",
                             "%c32 = ptx.constant 32 : i32\n"
                             "  %lo = ptx.setp lt u32 %tid, %c32 : i32\n"
                             "  ptx.cond_bra %lo, ^named, ^out\n"
                             "^named:\n"
                             "  ptx.bar_sync 1, 64\n"
                             "  ptx.bra ^out");
  Interpreter &in = load(body);
  LaunchResult r = in.launch("stuck", {2}, {64}, {}, clustered({2}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "cluster barrier deadlock: 64 thread(s) of this block wait at "
                "barrier.cluster.wait; 64 of the cluster's 96 live threads "
                "arrived");
  EXPECT_HAS(r, where(body, "ptx.barrier_cluster_wait"));

  body = replace(kStuck, "WAIT",
                 "%ready = ptx.mbarrier_try_wait parity [%b], %zero : i32, "
                 "i32\n  ptx.cond_bra %ready, ^out, ^wait");
  Interpreter &in2 = load(body);
  r = in2.launch("stuck", {2}, {64}, {}, clustered({2}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "mbarrier deadlock: 64 thread(s) wait");
  EXPECT_HAS(r, "block (1,0,0)");
}

TEST_F(ClusterTest, AThreadThatArrivesAndExitsDoesNotCompleteAPhase) {
  // Rank 0's warp 0 arrives and exits; its warp 1 waits, then reads what
  // the same thread of rank 1 wrote before arriving. The phase completes
  // only once every live thread arrived (rank 1's warp 1 too): the read is
  // ordered after the write. A second barrier keeps rank 1 alive.
  Interpreter &in = load(R"(
ptx.var shared @word : b32 [64] align 4
ptx.entry @k(%out: i64) {
  %tid = ptx.sreg tid.x : i32
  %rank = ptx.sreg cluster_ctarank : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %c4 = ptx.constant 4 : i32
  %c32 = ptx.constant 32 : i32
  %w = ptx.addressof @word : i32
  %off = ptx.mul lo s32 %tid, %c4 : i32
  %mine = ptx.add s32 %w, %off : i32
  %root = ptx.setp eq u32 %rank, %zero : i32
  ptx.cond_bra %root, ^reader, ^writer
^reader:
  ptx.barrier_cluster_arrive release aligned
  %warp0 = ptx.setp lt u32 %tid, %c32 : i32
  ptx.cond_bra %warp0, ^leave, ^read
^read:
  ptx.barrier_cluster_wait acquire aligned
  %theirs = ptx.mapa shared_cluster %mine, %one : i32
  %v = ptx.ld shared_cluster b32 [%theirs] : i32 -> i32
  %goff = ptx.mul wide u32 %tid, %c4 : (i32, i32) -> i64
  %o = ptx.add s64 %out, %goff : i64
  ptx.st global b32 [%o], %v : i64, i32
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  ptx.ret
^leave:
  ptx.ret
^writer:
  %v1 = ptx.add s32 %tid, %c4 : i32
  ptx.st shared b32 [%mine], %v1 : i32, i32
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  ptx.ret
})");
  uint64_t out = in.allocGlobal(64 * 4);
  LaunchResult r = in.launch("k", {2}, {64}, {out}, clustered({2}));
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(64);
  in.read(out, got);
  for (uint32_t t = 32; t < 64; ++t)
    EXPECT_EQ(got[t], t + 4) << "thread " << t;
}

TEST_F(ClusterTest, WaitWithoutArriveIsReported) {
  Interpreter &in = load(R"(
ptx.entry @k() {
  ptx.barrier_cluster_wait acquire aligned
  ptx.ret
})");
  LaunchResult r = in.launch("k", {2}, {32}, {}, clustered({2}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "barrier.cluster.wait without a barrier.cluster.arrive");
}

TEST_F(ClusterTest, RemoteArrivalsCompleteAnotherBlocksPhase) {
  // Every CTA's thread 0 arrives on rank 0's barrier (count: the cluster
  // size); rank 0 waits for the phase. Without the others' arrivals the
  // wait can never complete.
  const char *kArrive = R"(
ptx.var shared @bar : b64 [1] align 8
ptx.entry @gather(%out: i64) {
  %rank = ptx.sreg cluster_ctarank : i32
  %size = ptx.sreg cluster_nctarank : i32
  %tid = ptx.sreg tid.x : i32
  %zero = ptx.constant 0 : i32
  %b = ptx.addressof @bar : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  %root = ptx.setp eq u32 %rank, %zero : i32
  %init = ptx.and pred %first, %root : i1
  ptx.mbarrier_init if %init [%b], %size : i32
  ptx.fence_mbarrier_init
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  %remote = ptx.mapa shared_cluster %b, %zero : i32
  ARRIVE
  ptx.cond_bra %root, ^wait, ^done
^wait:
  %ready = ptx.mbarrier_try_wait parity [%b], %zero : i32, i32
  ptx.cond_bra %ready, ^fin, ^wait
^fin:
  %one = ptx.constant 1 : i32
  ptx.st if %first global b32 [%out], %one : i64, i32
  ptx.ret
^done:
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  ptx.ret
})";
  // Rank 0 leaves after its wait; the others wait at a cluster barrier rank
  // 0 never reaches, so rank 0's exit must release them.
  std::string body = replace(
      kArrive, "ARRIVE",
      "ptx.mbarrier_arrive if %first release cluster shared_cluster "
      "[%remote] : i32");
  Interpreter &in = load(body);
  uint64_t out = in.allocGlobal(4);
  LaunchResult r = in.launch("gather", {4}, {64}, {out}, clustered({4}));
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(1);
  in.read(out, got);
  EXPECT_EQ(got[0], 1u);

  std::string onlyRoot = replace(
      kArrive, "ARRIVE",
      "%r0 = ptx.and pred %first, %root : i1\n"
      "  ptx.mbarrier_arrive if %r0 release cluster shared_cluster "
      "[%remote] : i32");
  Interpreter &in2 = load(onlyRoot);
  r = in2.launch("gather", {4}, {64}, {in2.allocGlobal(4)}, clustered({4}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "mbarrier deadlock");
  EXPECT_HAS(r, "3 of 4 arrivals and 0 transaction bytes missing");
}

// Rank 0's thread 0 loads a box and multicasts it to every CTA of MASK;
// each CTA's thread 0 expects the bytes on its own barrier. Every CTA dumps
// its tile. INITSYNC orders the barriers' initialisation before the copy.
const char *kMulticast = R"(
ptx.var shared @tile : b8 [2048] align 1024
ptx.var shared @bar : b64 [1] align 8
ptx.entry @multicast(%map: i64 {ptx.tensor_map}, %out: i64) {
  %tid = ptx.sreg tid.x : i32
  %rank = ptx.sreg cluster_ctarank : i32
  %t = ptx.addressof @tile : i32
  %b = ptx.addressof @bar : i32
  %zero = ptx.constant 0 : i32
  %one = ptx.constant 1 : i32
  %c16 = ptx.constant 16 : i32
  %bytes = ptx.constant 2048 : i32
  %x = ptx.constant 8 : i32
  %y = ptx.constant 4 : i32
  %mask = ptx.constant MASK : i16
  %first = ptx.setp eq u32 %tid, %zero : i32
  ptx.mbarrier_init if %first [%b], %one : i32
  ptx.fence_mbarrier_init
  INITSYNC
  %s = ptx.mbarrier_arrive if %first expect_tx shared [%b], %bytes : i32 -> i64
  %root = ptx.setp eq u32 %rank, %zero : i32
  %issue = ptx.and pred %first, %root : i1
  ptx.cp_async_bulk_tensor_load if %issue 2d [%t], [%map, {%x, %y}], [%b] multicast %mask : i32, i32
  ptx.bra ^wait
^wait:
  %ready = ptx.mbarrier_try_wait parity [%b], %zero : i32, i32
  ptx.cond_bra %ready, ^done, ^wait
^done:
  %off = ptx.mul lo s32 %tid, %c16 : i32
  %src = ptx.add s32 %t, %off : i32
  %v:4 = ptx.ld shared b32 [%src] : i32 -> i32, i32, i32, i32
  %c2048 = ptx.constant 2048 : i32
  %boff = ptx.mul wide u32 %rank, %c2048 : (i32, i32) -> i64
  %goff = ptx.mul wide u32 %tid, %c16 : (i32, i32) -> i64
  %o1 = ptx.add s64 %out, %boff : i64
  %o = ptx.add s64 %o1, %goff : i64
  ptx.st global b32 [%o], %v#0, %v#1, %v#2, %v#3 : i64, i32, i32, i32, i32
  ptx.barrier_cluster_arrive release aligned
  ptx.barrier_cluster_wait acquire aligned
  ptx.ret
})";

std::string multicast(llvm::StringRef mask, llvm::StringRef initSync) {
  return replace(replace(kMulticast, "MASK", mask), "INITSYNC", initSync);
}

TEST_F(ClusterTest, MulticastTmaLandsTheBoxInEveryBlockOfTheMask) {
  const uint64_t rows = 40, cols = 96;
  std::vector<uint16_t> host(rows * cols);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = uint16_t(i * 7 + 3);
  Interpreter &in = load(multicast("3", kClusterSync), "sm_90a");
  uint64_t a = in.allocGlobal(host.size() * 2);
  in.write(a, host);
  uint64_t map = makeTensorMap2D(in, a, rows, cols, 16, 64,
                                 rt::TensorMapSwizzle::B128);
  uint64_t out = in.allocGlobal(2 * 2048);
  LaunchResult r = in.launch("multicast", {2}, {128}, {map, out},
                             clustered({2}));
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint16_t> got(2 * 1024);
  in.read(out, got);
  ptx::Swizzle sw{3, 4, 3};
  for (unsigned rank = 0; rank < 2; ++rank)
    for (uint32_t i = 0; i < 16; ++i)
      for (uint32_t j = 0; j < 64; ++j) {
        uint64_t row = 4 + i, col = 8 + j;
        uint16_t want = col < cols ? host[row * cols + col] : 0;
        ASSERT_EQ(got[rank * 1024 + sw.apply((i * 64 + j) * 2) / 2], want)
            << "rank " << rank << " box (" << i << ", " << j << ")";
      }
}

TEST_F(ClusterTest, MulticastBeforeTheNeighboursBarrierExistsIsReported) {
  // Without the cluster barrier after mbarrier.init, rank 0 multicasts
  // before rank 1 has initialised its barrier.
  Interpreter &in = load(multicast("3", ""), "sm_90a");
  LaunchResult r = launchMulticast(in);
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "which holds no initialised mbarrier (mbarrier.init)");
  EXPECT_HAS(r, "accessing the shared memory of block (1,0,0)");
}

TEST_F(ClusterTest, AMulticastMaskBeyondTheClusterIsReported) {
  Interpreter &in = load(multicast("5", kClusterSync), "sm_90a");
  LaunchResult r = launchMulticast(in);
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "the multicast mask 0x5 names CTAs beyond the cluster's 2");
}

TEST_F(ClusterTest, MapaOutsideTheClusterIsReported) {
  std::string body = R"(
ptx.var shared @w : b32 [1] align 4
ptx.entry @k() {
  %a = ptx.addressof @w : i32
  %r = ptx.sreg cluster_nctarank : i32
  %m = ptx.mapa shared_cluster %a, %r : i32
  ptx.ret
})";
  Interpreter &in = load(body);
  LaunchResult r = in.launch("k", {4}, {32}, {}, clustered({2}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "mapa of shared address 0x0 to CTA rank 2: the cluster has 2 "
                "CTAs");
  EXPECT_HAS(r, where(body, "ptx.mapa"));
}

TEST_F(ClusterTest, AKernelThatNamesItsClusterGetsIt) {
  // reqnctapercluster: a launch without cluster dimensions runs in the
  // kernel's clusters, one with others fails.
  Interpreter &in = load(R"(
ptx.entry @k(%out: i64) attributes {reqnctapercluster = array<i32: 2>} {
  %tid = ptx.sreg tid.x : i32
  %bx = ptx.sreg ctaid.x : i32
  %n = ptx.sreg cluster_nctarank : i32
  %c4 = ptx.constant 4 : i32
  %zero = ptx.constant 0 : i32
  %first = ptx.setp eq u32 %tid, %zero : i32
  %off = ptx.mul wide u32 %bx, %c4 : (i32, i32) -> i64
  %p = ptx.add s64 %out, %off : i64
  ptx.st if %first global b32 [%p], %n : i64, i32
  ptx.ret
})");
  uint64_t out = in.allocGlobal(16);
  LaunchResult r = in.launch("k", {4}, {32}, {out});
  ASSERT_TRUE(r.success) << r.message();
  std::vector<uint32_t> got(4);
  in.read(out, got);
  EXPECT_EQ(got, std::vector<uint32_t>(4, 2u));
  r = in.launch("k", {4}, {32}, {out}, clustered({4}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "the launch's cluster (4,1,1) differs from the kernel's "
                "reqnctapercluster (2,1,1)");
  r = in.launch("k", {3}, {32}, {out});
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "the grid (3,1,1) is not a whole number of clusters (2,1,1)");
}

TEST_F(ClusterTest, LaunchShapesAreChecked) {
  Interpreter &in = load(R"(
ptx.entry @k() {
  ptx.ret
})");
  LaunchResult r = in.launch("k", {6}, {32}, {}, clustered({4}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "the grid (6,1,1) is not a whole number of clusters (4,1,1)");
  r = in.launch("k", {32}, {32}, {}, clustered({32}));
  ASSERT_FALSE(r.success);
  EXPECT_HAS(r, "a cluster has 1 to 16 blocks, not 32");
}

} // namespace
