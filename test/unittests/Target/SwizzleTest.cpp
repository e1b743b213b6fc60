//===- SwizzleTest.cpp - the swizzle table's entries are conflict-free ----===//
//
// For every row width in the table: the swizzle permutes each tile's 16-byte
// chunks, 8 lanes writing 8 consecutive chunks (cp.async, st.shared.v4) hit
// 8 distinct 16-byte bank groups, and so do the 8 rows of every ldmatrix
// (rows r0..r0+7, r0 a multiple of 8, any 16-byte column).
//
//===----------------------------------------------------------------------===//

#include "Kaio/Dialect/PTX/IR/Swizzle.h"
#include "gtest/gtest.h"

#include <set>

using namespace kaio::ptx;

namespace {

/// The 16-byte bank group (bits 4..6) of a byte offset: 8 distinct groups
/// in a phase of 16-byte accesses is one wavefront.
unsigned bankGroup(uint64_t offset) { return (offset >> 4) & 7; }

TEST(Swizzle, TableEntriesAreConflictFree) {
  for (uint64_t rowBytes = 16; rowBytes <= 4096; rowBytes *= 2) {
    std::optional<Swizzle> s = getConflictFreeSwizzle(rowBytes);
    ASSERT_TRUE(s) << rowBytes;
    ASSERT_TRUE(s->isValid());
    const uint64_t rows = 64, bytes = rows * rowBytes;
    // A permutation of the tile's chunks, each staying in its segment.
    std::set<uint64_t> seen;
    for (uint64_t o = 0; o < bytes; o += 16) {
      uint64_t to = s->apply(o);
      EXPECT_EQ(to / s->segmentBytes(), o / s->segmentBytes());
      EXPECT_EQ(to % 16, 0u);
      seen.insert(to);
    }
    EXPECT_EQ(seen.size(), bytes / 16) << rowBytes;
    // 8 consecutive chunks of a row (or of consecutive rows): one wavefront.
    for (uint64_t o = 0; o < bytes; o += 128) {
      std::set<unsigned> groups;
      for (uint64_t c = 0; c < 8; ++c)
        groups.insert(bankGroup(s->apply(o + 16 * c)));
      EXPECT_EQ(groups.size(), 8u) << rowBytes << " at " << o;
    }
    // ldmatrix: 8 consecutive rows, one 16-byte column each.
    for (uint64_t r0 = 0; r0 < rows; r0 += 8)
      for (uint64_t col = 0; col < rowBytes; col += 16) {
        std::set<unsigned> groups;
        for (uint64_t r = r0; r < r0 + 8; ++r)
          groups.insert(bankGroup(s->apply(r * rowBytes + col)));
        EXPECT_EQ(groups.size(), 8u)
            << rowBytes << "-byte rows, rows " << r0 << "+, column " << col;
      }
  }
}

TEST(Swizzle, StridedRowEntriesAreConflictFree) {
  // 16-byte reads of 8 rows rowStep apart (the SGEMM's lanes owning 4
  // consecutive rows of a K-contiguous tile), and consecutive chunk writes.
  for (uint64_t rowStep = 2; rowStep <= 16; rowStep *= 2)
    for (uint64_t rowBytes = 16; rowBytes * rowStep <= 4096; rowBytes *= 2) {
      std::optional<Swizzle> s = getConflictFreeSwizzle(rowBytes, rowStep);
      if (rowBytes * rowStep < 128) {
        EXPECT_FALSE(s) << rowBytes << " x " << rowStep;
        continue;
      }
      ASSERT_TRUE(s) << rowBytes << " x " << rowStep;
      const uint64_t rows = 8 * rowStep * 4, bytes = rows * rowBytes;
      std::set<uint64_t> seen;
      for (uint64_t o = 0; o < bytes; o += 16)
        seen.insert(s->apply(o));
      EXPECT_EQ(seen.size(), bytes / 16);
      for (uint64_t o = 0; o < bytes; o += 128) {
        std::set<unsigned> groups;
        for (uint64_t c = 0; c < 8; ++c)
          groups.insert(bankGroup(s->apply(o + 16 * c)));
        EXPECT_EQ(groups.size(), 8u) << rowBytes << " at " << o;
      }
      for (uint64_t r0 = 0; r0 + 7 * rowStep < rows; ++r0)
        for (uint64_t col = 0; col < rowBytes; col += 16) {
          std::set<unsigned> groups;
          for (uint64_t t = 0; t < 8; ++t)
            groups.insert(
                bankGroup(s->apply((r0 + t * rowStep) * rowBytes + col)));
          EXPECT_EQ(groups.size(), 8u)
              << rowBytes << "-byte rows " << rowStep << " apart from row "
              << r0 << ", column " << col;
        }
    }
  // The SGEMM's [n][k] f32 tile: 64-byte rows 4 apart, Swizzle<3, 4, 4>.
  EXPECT_EQ(getConflictFreeSwizzle(64, 4), (Swizzle{3, 4, 4}));
  EXPECT_EQ(getConflictFreeSwizzle(64, 1), getConflictFreeSwizzle(64));
  EXPECT_FALSE(getConflictFreeSwizzle(64, 3));
  EXPECT_FALSE(getConflictFreeSwizzle(48, 4));
}

TEST(Swizzle, RowsThatAreNotAPowerOfTwoGetNone) {
  EXPECT_FALSE(getConflictFreeSwizzle(48));
  EXPECT_FALSE(getConflictFreeSwizzle(8));
  EXPECT_FALSE(getConflictFreeSwizzle(0));
}

TEST(Swizzle, MatchesCuteSwizzle343) {
  // Swizzle<3, 4, 3>: Hopper's 128-byte mode. Offset 0x380 (row 7 of
  // 128-byte rows, chunk 0) moves to chunk 7.
  Swizzle s{3, 4, 3};
  EXPECT_EQ(s.apply(0x380), 0x3f0u);
  EXPECT_EQ(s.apply(0x38f), 0x3ffu);
  EXPECT_EQ(s.apply(0x7f), 0x7fu);
  EXPECT_EQ(s.periodBytes(), 1024u);
  EXPECT_EQ(s.segmentBytes(), 128u);
  EXPECT_TRUE((Swizzle{0, 4, 3}).isIdentity());
  EXPECT_FALSE((Swizzle{3, 4, 2}).isValid());
}

} // namespace
