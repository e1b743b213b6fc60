//===- BlockBounds.h - a launch's block against the compiled one *- C++ -*-===//
//
// One contract for both runners: the runtime (the block in a kernel's
// `// kaio.kernel` comment) and the interpreter (its ptx.entry's .maxntid /
// .reqntid) refuse the same launches with the same words. Header-only: the
// interpreter does not link the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef KAIO_RUNTIME_BLOCKBOUNDS_H
#define KAIO_RUNTIME_BLOCKBOUNDS_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace kaio::rt {

/// The most threads a block has on every GPU KAIO targets.
inline constexpr unsigned kMaxBlockThreads = 1024;

/// Why a launch's block (x, y, z) does not fit the block a kernel was
/// compiled for, whose first `rank` extents are `compiled` (PTX .maxntid,
/// or .reqntid where `exact`); empty when it fits, `rank` is 0 or an
/// extent is 0 (for the launch's own checks to name). A block
/// fits with no extent but 1 past the rank (a 1-D kernel's warp_id and
/// block_reduce read tid.x alone), at most the compiled threads and, where
/// `exact`, the compiled shape.
inline std::string describeBlockMismatch(std::array<unsigned, 3> block,
                                         std::array<unsigned, 3> compiled,
                                         unsigned rank, bool exact) {
  // No compiled block, or an empty block (the launch's own checks name
  // the zero extent).
  if (rank == 0 || !block[0] || !block[1] || !block[2])
    return {};
  auto dims = [](const std::array<unsigned, 3> &d, unsigned n) {
    std::string s;
    for (unsigned i = 0; i < n; ++i)
      s += (i ? "x" : "") + std::to_string(d[i]);
    return s;
  };
  unsigned launchedRank = block[2] != 1 ? 3 : block[1] != 1 ? 2 : 1;
  // (Saturating: three 32-bit extents overflow a 64-bit product.)
  std::uint64_t threads = 1;
  for (unsigned extent : block)
    threads = std::min<std::uint64_t>(threads * extent, std::uint64_t(1) << 32);
  std::uint64_t bound = 1;
  for (unsigned i = 0; i < rank; ++i)
    bound *= compiled[i];
  std::string problem;
  if (launchedRank > rank)
    problem = "has " + std::to_string(launchedRank) + " dimensions, more than";
  else if (exact && (block[0] != compiled[0] ||
                     block[1] != (rank > 1 ? compiled[1] : 1) ||
                     block[2] != (rank > 2 ? compiled[2] : 1)))
    problem = "differs from";
  else if (threads > bound)
    problem = "has more threads than";
  else
    return {};
  return "block " + dims(block, launchedRank) + " " + problem +
         " the kernel's compiled block " + dims(compiled, rank) + " (" +
         (exact ? ".reqntid" : ".maxntid") + ")";
}

} // namespace kaio::rt

#endif // KAIO_RUNTIME_BLOCKBOUNDS_H
